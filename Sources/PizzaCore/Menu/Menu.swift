/// What the kitchen offers: kinds with prices per size, crusts, extras and the currency.
///
/// Adding a kind (say, seafood) is an entry here, usually from configuration; no code changes.
public struct Menu: Sendable, Equatable {
    /// ISO 4217 currency code all prices are in, e.g. `"EUR"`.
    public var currency: String
    /// The kinds, in menu order.
    public var kinds: [PizzaKind]
    /// The crusts a pizza may have.
    public var crusts: [String]
    /// The extras a pizza may have, with the price each adds to one pizza, in minor units.
    public var extras: [String: Int64]

    /// What else the shop sells (drinks, sides, desserts), in menu order.
    public var products: [MenuProduct]
    /// The VAT rates by name, in basis points (`food: 700`); `none: 0` when the menu names none.
    public var taxes: [String: Int64]
    /// The rate pizzas and their extras are sold at.
    public var pizzaTax: String
    /// The fee added to every delivery order, if any.
    public var deliveryFee: Fee?

    /// A menu of these kinds, crusts and extras, priced in `currency`, and of these products, taxes and fee.
    public init(
        currency: String, kinds: [PizzaKind], crusts: [String], extras: [String: Int64],
        products: [MenuProduct] = [], taxes: [String: Int64] = [TaxRate.none.name: 0],
        pizzaTax: String = TaxRate.none.name, deliveryFee: Fee? = nil
    ) {
        self.currency = currency
        self.kinds = kinds
        self.crusts = crusts
        self.extras = extras
        self.products = products
        self.taxes = taxes.isEmpty ? [TaxRate.none.name: 0] : taxes
        self.pizzaTax = pizzaTax
        self.deliveryFee = deliveryFee
    }

    /// The product `id`, if the menu has it.
    public func product(id: String) -> MenuProduct? { products.first { $0.id == id } }

    /// The rate called `name` with its basis points now (``TaxRate/none`` for a name the menu lacks: configuration
    /// refuses such a menu before it is used).
    public func rate(named name: String) -> TaxRate {
        taxes[name].map { TaxRate(name: name, basisPoints: $0) } ?? .none
    }

    /// The kind called `name`, if the menu has it.
    public func kind(named name: String) -> PizzaKind? { kinds.first { $0.name == name } }

    /// The built-in menu, used when configuration names none.
    public static let standard = Menu(
        currency: "EUR",
        kinds: [
            PizzaKind(name: "cheese", prices: [.small: 700, .medium: 900, .large: 1100, .extraLarge: 1300]),
            PizzaKind(name: "chicken", prices: [.small: 850, .medium: 1050, .large: 1250, .extraLarge: 1450]),
            PizzaKind(
                name: "seafood", prices: [.small: 950, .medium: 1150, .large: 1350], defaultCrust: "thin"),
        ],
        crusts: ["classic", "thin", "stuffed"],
        extras: ["olives": 80, "mushrooms": 90, "jalapenos": 70, "bacon": 150, "extra-cheese": 120]
    )
}
