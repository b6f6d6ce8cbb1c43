/// What `order.create` asks for: who it is for, what is in it, how it reaches the customer, and whether it is placed
/// at once.
public struct NewOrder: Sendable {
    /// The customer's name.
    public var customer: String?
    /// The client's own reference (an idempotent retry finds its order by it).
    public var ref: String?
    /// A note for the kitchen or the driver.
    public var note: String?
    /// The pizzas, in order.
    public var pizzas: [Pizza]
    /// The products, after the pizzas.
    public var products: [Product]
    /// Pickup, delivery or dine-in, and when.
    public var fulfilment: Fulfilment
    /// The fee a delivery carries (the menu's `fees.delivery`), if any.
    public var deliveryFee: Fee?
    /// Placed at once (it then needs an item).
    public var place: Bool
    /// The menu's currency.
    public var currency: String

    /// A new order.
    public init(
        customer: String? = nil, ref: String? = nil, note: String? = nil, pizzas: [Pizza] = [],
        products: [Product] = [], fulfilment: Fulfilment = .pickup, deliveryFee: Fee? = nil, place: Bool = false,
        currency: String
    ) {
        self.customer = customer
        self.ref = ref
        self.note = note
        self.pizzas = pizzas
        self.products = products
        self.fulfilment = fulfilment
        self.deliveryFee = deliveryFee
        self.place = place
        self.currency = currency
    }

    /// How many items it holds.
    public var itemCount: Int { pizzas.count + products.count }
}
