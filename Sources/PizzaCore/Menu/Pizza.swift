/// A finished, validated pizza line: what the kitchen makes and what the customer pays for it.
///
/// Make one with ``PizzaFactory`` and ``PizzaBuilder``; the builder's `build()` is the only place that checks it.
public struct Pizza: Sendable, Equatable {
    /// The menu kind, e.g. `"chicken"`.
    public var kind: String
    /// S, M, L or XL.
    public var size: Size
    /// One of the menu's crusts.
    public var crust: String
    /// Whether it has chili sauce.
    public var chiliSauce: Bool
    /// Whether it has ketchup.
    public var ketchup: Bool
    /// Extras, sorted, each at most once.
    public var extras: [String]
    /// How many of this pizza, 1…50.
    public var quantity: Int
    /// Price of one pizza (kind at size plus extras), in minor units.
    public var unitPrice: Int64

    /// Price of the line: unit price times quantity.
    public var price: Int64 { unitPrice * Int64(quantity) }

    /// Builds a pizza from stored fields without validating them (for storage reading what it wrote).
    public init(
        kind: String, size: Size, crust: String, chiliSauce: Bool, ketchup: Bool, extras: [String], quantity: Int,
        unitPrice: Int64
    ) {
        self.kind = kind
        self.size = size
        self.crust = crust
        self.chiliSauce = chiliSauce
        self.ketchup = ketchup
        self.extras = extras
        self.quantity = quantity
        self.unitPrice = unitPrice
    }
}
