/// Finishes a pizza step by step, starting from its kind's defaults; `build()` validates and prices it.
///
/// Setters return a new builder, so they chain: `try factory.builder(for: "cheese").size("L").chiliSauce().build()`.
/// Nothing is checked until `build()`, which reports the first field at fault as a ``PizzaError``.
public struct PizzaBuilder: Sendable {
    /// The allowed quantities of one pizza line.
    public static let quantityRange = 1...50

    /// A kind and the menu it is on, shared by every builder of the kind (``PizzaFactory`` makes one per kind).
    final class Kind: Sendable {
        let kind: PizzaKind
        let menu: Menu
        /// `menu.pizzaTax`, looked up once.
        let tax: TaxRate
        /// The kind's price in each size (nil where it is not offered), read by a switch on the size where the
        /// dictionary hashed the size for every pizza.
        private let prices: (small: Int64?, medium: Int64?, large: Int64?, extraLarge: Int64?)

        init(_ kind: PizzaKind, menu: Menu) {
            self.kind = kind
            self.menu = menu
            tax = menu.rate(named: menu.pizzaTax)
            prices = (kind.prices[.small], kind.prices[.medium], kind.prices[.large], kind.prices[.extraLarge])
        }

        /// The kind's price in `size`, or nil where it is not offered.
        func price(_ size: Size) -> Int64? {
            switch size {
            case .small: prices.small
            case .medium: prices.medium
            case .large: prices.large
            case .extraLarge: prices.extraLarge
            }
        }
    }

    private let definition: Kind
    private var kind: PizzaKind { definition.kind }
    private var menu: Menu { definition.menu }
    private var size: String
    private var crust: String
    private var chiliSauce: Bool
    private var ketchup: Bool
    private var extras: [String]
    private var quantity: Int
    private var note: String?

    init(_ definition: Kind) {
        self.definition = definition
        let kind = definition.kind
        self.size = kind.defaultSize.rawValue
        self.crust = kind.defaultCrust
        self.chiliSauce = kind.chiliSauce
        self.ketchup = kind.ketchup
        self.extras = kind.extras
        self.quantity = 1
    }

    /// Sets the size by its name (`S`, `M`, `L`, `XL`).
    public func size(_ size: String) -> Self { with { $0.size = size } }
    /// Sets the size.
    public func size(_ size: Size) -> Self { with { $0.size = size.rawValue } }
    /// Sets the crust.
    public func crust(_ crust: String) -> Self { with { $0.crust = crust } }
    /// Adds or leaves out chili sauce.
    public func chiliSauce(_ on: Bool = true) -> Self { with { $0.chiliSauce = on } }
    /// Adds or leaves out ketchup.
    public func ketchup(_ on: Bool = true) -> Self { with { $0.ketchup = on } }
    /// Replaces the extras (including the kind's default ones).
    public func extras(_ extras: [String]) -> Self { with { $0.extras = extras } }
    /// Adds one extra to those already chosen.
    public func extra(_ extra: String) -> Self { with { $0.extras.append(extra) } }
    /// Sets how many of this pizza.
    public func quantity(_ quantity: Int) -> Self { with { $0.quantity = quantity } }
    /// Sets a note for the kitchen (checked where the pizza joins a cart).
    public func note(_ note: String?) -> Self { with { $0.note = note } }

    private func with(_ change: (inout Self) -> Void) -> Self {
        var copy = self
        change(&copy)
        return copy
    }

    /// The validated, priced pizza.
    public func build() throws(PizzaError) -> Pizza {
        guard let size = Size(rawValue: size) else {
            throw .unknownSize(self.size, allowed: Size.allCases.map(\.rawValue))
        }
        guard let basePrice = definition.price(size) else {
            throw .sizeNotOffered(size, kind: kind.name, offered: kind.sizes.map(\.rawValue))
        }
        guard menu.crusts.contains(crust) else { throw .unknownCrust(crust, allowed: menu.crusts) }
        // Sorted and without repeats; none or one (most pizzas) needs no set.
        let uniqueExtras = extras.count < 2 ? extras : Array(Set(extras)).sorted()
        var unitPrice = basePrice
        for extra in uniqueExtras {
            guard let price = menu.extras[extra] else {
                throw .unknownExtra(extra, allowed: menu.extras.keys.sorted())
            }
            unitPrice += price
        }
        guard Self.quantityRange.contains(quantity) else {
            throw .quantityOutOfRange(quantity, allowed: Self.quantityRange)
        }
        return Pizza(
            kind: kind.name, size: size, crust: crust, chiliSauce: chiliSauce, ketchup: ketchup,
            extras: uniqueExtras, quantity: quantity, unitPrice: unitPrice, tax: definition.tax, note: note)
    }
}
