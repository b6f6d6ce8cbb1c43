/// Which menu items are off ("86": sold out, the oven for it broken): a kind, a product or an extra, by its name
/// on the menu (CONTRACT section 17). The repository refuses an order or an item that needs one; the daemon loads
/// it from the `availability` table at start and keeps it as each change commits.
///
/// One object shared by the repository and the menu's answers. Reading takes a lock; with nothing off (a shop's
/// usual state) a check is one atomic-free flag read under it and no set lookup.
public final class Availability: Sendable {
    private let off = Locked<Set<String>>([])

    /// Everything available.
    public init() {}

    /// The items that are off now, sorted.
    public var unavailable: [String] { off.withLock { $0.sorted() } }

    /// Whether `item` may be ordered.
    public func isAvailable(_ item: String) -> Bool { off.withLock { !$0.contains(item) } }

    /// Marks `item` off or on again.
    public func set(_ item: String, available: Bool) {
        off.withLock { off in
            if available { off.remove(item) } else { off.insert(item) }
        }
    }

    /// Replaces what is off with `items` (the table as read at start).
    public func replace(unavailable items: some Sequence<String>) { off.withLock { $0 = Set(items) } }

    /// Throws ``Unavailable`` for the first of the pizzas' kinds and extras, and the products, that is off.
    public func check(pizzas: some Collection<Pizza>, products: some Collection<Product>) throws(Unavailable) {
        if pizzas.isEmpty, products.isEmpty { return }
        let refusal: Unavailable? = off.withLock { off in
            if off.isEmpty { return nil }
            for pizza in pizzas {
                if off.contains(pizza.kind) { return Unavailable(field: "kind", item: pizza.kind) }
                if let extra = pizza.extras.first(where: off.contains) {
                    return Unavailable(field: "extras", item: extra)
                }
            }
            if let product = products.first(where: { off.contains($0.product) }) {
                return Unavailable(field: "product", item: product.product)
            }
            return nil
        }
        if let refusal { throw refusal }
    }
}

/// An item that is off the menu for now was ordered: `validation`, with `data: {field, item, reason:
/// "unavailable"}` (CONTRACT section 17).
public struct Unavailable: Error, Equatable, Sendable, DomainFailure {
    /// The field that named it: `kind`, `extras` or `product`.
    public var field: String
    /// The item.
    public var item: String

    /// `item`, named by `field`, is off.
    public init(field: String, item: String) {
        self.field = field
        self.item = item
    }

    /// Always `validation`.
    public var kind: FailureKind { .validation }
    /// The field, the item, and the reason `unavailable`.
    public var details: FailureDetails { FailureDetails(field: field, item: item, reason: "unavailable") }
    /// "cola-033 is not available now".
    public var description: String { "\(item) is not available now (taken off the menu)" }
}

extension Menu {
    /// Every name `menu.setAvailable` takes: the kinds, the products and the extras.
    public var itemNames: Set<String> {
        Set(kinds.map(\.name)).union(products.map(\.id)).union(extras.keys)
    }
}
