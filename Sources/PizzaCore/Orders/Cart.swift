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
    /// The product lines (drinks, sides, desserts), each with its item id, in the order they were added.
    public var products: [CartProduct]
    /// How the order reaches its customer and when (a pickup as soon as possible unless said).
    public var fulfilment: Fulfilment
    /// The discounts given, oldest first.
    public var discounts: [Discount]
    /// The fees charged (a delivery's).
    public var fees: [Fee]
    /// The payments and refunds, oldest first.
    public var payments: [Payment]

    /// An order from its fields, as storage reads it.
    public init(
        id: Int64, ref: String?, customer: String?, note: String?, status: OrderStatus, items: [CartItem],
        currency: String, createdAt: Timestamp, updatedAt: Timestamp, history: [StatusChange],
        products: [CartProduct] = [], fulfilment: Fulfilment = .pickup, discounts: [Discount] = [], fees: [Fee] = [],
        payments: [Payment] = []
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
        self.products = products
        self.fulfilment = fulfilment
        self.discounts = discounts
        self.fees = fees
        self.payments = payments
    }

    /// The sum of the items' prices (pizzas and products), in minor units.
    public var subtotal: Int64 {
        var total: Int64 = 0
        for item in items {
            let (sum, overflow) = total.addingReportingOverflow(item.pizza.price)
            total = overflow ? .max : sum  // only a database edited by hand gets here (Pizza.price)
        }
        for line in products {
            let (sum, overflow) = total.addingReportingOverflow(line.product.price)
            total = overflow ? .max : sum
        }
        return total
    }

    /// What the customer owes: subtotal - discounts + fees; 0 once cancelled (CONTRACT section 17).
    public var total: Int64 {
        if status == .cancelled { return 0 }
        // A pizza-only order (every order before products) has nothing else to add up.
        if discounts.isEmpty && fees.isEmpty { return subtotal }
        let (total, overflow) = subtotal.subtractingReportingOverflow(discountTotal)
        let (withFees, overflow2) = total.addingReportingOverflow(feeTotal)
        return overflow || overflow2 ? .max : withFees
    }

    /// How many pizzas the order holds (each item's quantity, added up).
    public var pizzaCount: Int { items.reduce(0) { $0 + $1.pizza.quantity } }

    /// Adds a pizza as a new item; only while `open`.
    public mutating func add(_ pizza: Pizza, itemID: Int64, at time: Timestamp) throws(OrderError) {
        guard status.acceptsItems else { throw .notOpen(id: id, status: status) }
        if let note = pizza.note { try Self.checkNote(note) }
        items.append(CartItem(id: itemID, pizza: pizza))
        updatedAt = time
    }

    /// Adds a product line as a new item; only while `open`.
    public mutating func add(_ product: Product, itemID: Int64, at time: Timestamp) throws(OrderError) {
        guard status.acceptsItems else { throw .notOpen(id: id, status: status) }
        if let note = product.note { try Self.checkNote(note) }
        products.append(CartProduct(id: itemID, product: product))
        updatedAt = time
    }

    /// Removes an item (a pizza or a product) and the discounts given on it; only while `open`, and not when the
    /// order's own discounts would then take off more than is left.
    public mutating func remove(itemID: Int64, at time: Timestamp) throws(OrderError) {
        guard status.acceptsItems else { throw .notOpen(id: id, status: status) }
        if let index = items.firstIndex(where: { $0.id == itemID }) {
            items.remove(at: index)
        } else if let index = products.firstIndex(where: { $0.id == itemID }) {
            products.remove(at: index)
        } else {
            throw .itemNotFound(orderID: id, itemID: itemID)
        }
        if !discounts.isEmpty {
            discounts.removeAll { $0.item == itemID }
            if subtotal < discountTotal {
                throw .validation(
                    field: "item", allowed: ["an item whose removal leaves the order's discounts covered"],
                    message: "removing item \(itemID) would leave order \(id)'s discounts above its items")
            }
        }
        updatedAt = time
    }

    /// Applies a transition, recording it in the history. `expected` guards `advance` against a double move:
    /// when given, the order must be in that status (``OrderError/conflict(id:expected:actual:)`` otherwise).
    public mutating func apply(
        _ transition: Transition, expected: OrderStatus? = nil, reason: String? = nil, by actor: ChangeActor,
        at time: Timestamp
    ) throws(OrderError) {
        if let expected, expected != status { throw .conflict(id: id, expected: expected, actual: status) }
        if transition == .place, items.isEmpty, products.isEmpty { throw .emptyCart(id: id) }
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
