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

    /// A menu of these kinds, crusts and extras, priced in `currency`.
    public init(currency: String, kinds: [PizzaKind], crusts: [String], extras: [String: Int64]) {
        self.currency = currency
        self.kinds = kinds
        self.crusts = crusts
        self.extras = extras
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
