/// An order: a cart of pizzas carried through its status machine.
///
/// A value: each change makes a new cart from the old one, which keeps the before and after of every change
/// for the audit log. The methods here check the rules of CONTRACT section 2 and throw ``OrderError``.
public struct Cart: Sendable, Equatable {
    /// The order number (`carts.id`).
    public var id: Int64
    /// The client's own reference, unique when given (idempotent retries).
    public var ref: String?
    /// The customer's name, if given.
    public var customer: String?
    /// A note for the kitchen or the driver.
    public var note: String?
    /// Where the order is in its life (CONTRACT section 2).
    public var status: OrderStatus
    /// The pizzas, each with its item id, in the order they were added.
    public var items: [CartItem]
    /// The ISO 4217 code every price is in (the menu's when the order was created).
    public var currency: String
    /// When the order was created.
    public var createdAt: Timestamp
    /// When it last changed.
    public var updatedAt: Timestamp
    /// Every status change, oldest first; the first entry is the creation as `open`.
    public var history: [StatusChange]

    /// An order from its fields, as storage reads it.
    public init(
        id: Int64, ref: String?, customer: String?, note: String?, status: OrderStatus, items: [CartItem],
        currency: String, createdAt: Timestamp, updatedAt: Timestamp, history: [StatusChange]
    ) {
        self.id = id
        self.ref = ref
        self.customer = customer
        self.note = note
        self.status = status
        self.items = items
        self.currency = currency
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.history = history
    }

    /// The sum of the items' prices, in minor units.
    public var total: Int64 {
        items.reduce(0) { total, item in
            let (sum, overflow) = total.addingReportingOverflow(item.pizza.price)
            return overflow ? .max : sum  // only a database edited by hand gets here (Pizza.price)
        }
    }

    /// How many pizzas the order holds (each item's quantity, added up).
    public var pizzaCount: Int { items.reduce(0) { $0 + $1.pizza.quantity } }

    /// Adds a pizza as a new item; only while `open`.
    public mutating func add(_ pizza: Pizza, itemID: Int64, at time: Timestamp) throws(OrderError) {
        guard status.acceptsItems else { throw .notOpen(id: id, status: status) }
        items.append(CartItem(id: itemID, pizza: pizza))
        updatedAt = time
    }

    /// Removes an item; only while `open`.
    public mutating func remove(itemID: Int64, at time: Timestamp) throws(OrderError) {
        guard status.acceptsItems else { throw .notOpen(id: id, status: status) }
        guard let index = items.firstIndex(where: { $0.id == itemID }) else {
            throw .itemNotFound(orderID: id, itemID: itemID)
        }
        items.remove(at: index)
        updatedAt = time
    }

    /// Applies a transition, recording it in the history. `expected` guards `advance` against a double move:
    /// when given, the order must be in that status (``OrderError/conflict(id:expected:actual:)`` otherwise).
    public mutating func apply(
        _ transition: Transition, expected: OrderStatus? = nil, reason: String? = nil, by actor: ChangeActor,
        at time: Timestamp
    ) throws(OrderError) {
        if let expected, expected != status { throw .conflict(id: id, expected: expected, actual: status) }
        if transition == .place, items.isEmpty { throw .emptyCart(id: id) }
        switch status.applying(transition) {
        case .failure(let invalid): throw .invalidTransition(id: id, invalid)
        case .success(let target):
            history.append(StatusChange(from: status, to: target, at: time, actor: actor, reason: reason))
            status = target
            updatedAt = time
        }
    }
}

extension Cart {
    /// How many characters a client reference (`ref`) may have.
    public static let refLength = 1...200

    /// Throws ``OrderError/validation(field:allowed:message:)`` unless `ref` has ``refLength`` characters.
    public static func checkRef(_ ref: String) throws(OrderError) {
        // A till's ref is ASCII: its bytes are its characters, checked where they are without counting graphemes.
        let plain =
            ref.utf8.withContiguousStorageIfAvailable { bytes in
                refLength.contains(bytes.count) && !bytes.contains { $0 < 0x20 || $0 >= 0x7F }
            } ?? false
        if plain { return }
        guard refLength.contains(ref.count) else {
            let allowed = "\(refLength.lowerBound)..\(refLength.upperBound) characters"
            throw OrderError.validation(
                field: "ref", allowed: [allowed],
                message: "ref must be \(refLength.lowerBound) to \(refLength.upperBound) characters")
        }
        // SQLite's length() stops at a NUL, and a control character or a bidirectional override in a ref is a till's
        // bug, not a reference. A ref is kept as sent (not normalised): a retry finds its order by the same bytes.
        if let refusal = ShopText.refusal(ref, field: "ref", characters: refLength, bytes: refLength.upperBound * 4) {
            throw refusal
        }
    }
}
