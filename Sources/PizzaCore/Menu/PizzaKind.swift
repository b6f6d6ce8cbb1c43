/// One kind on the menu and the defaults a pizza of that kind starts from.
public struct PizzaKind: Sendable, Equatable {
    /// The name customers and the CLI use, e.g. `"chicken"`.
    public var name: String
    /// Price of one pizza per offered size, in minor units; a size without a price is not offered.
    public var prices: [Size: Int64]
    /// The size a pizza gets when none is asked for.
    public var defaultSize: Size
    /// The crust a pizza gets when none is asked for.
    public var defaultCrust: String
    /// Whether chili sauce comes with it by default.
    public var chiliSauce: Bool
    /// Whether ketchup comes with it by default.
    public var ketchup: Bool
    /// Extras included by default (charged like any extra).
    public var extras: [String]

    /// A kind with its prices per size and its defaults.
    public init(
        name: String, prices: [Size: Int64], defaultSize: Size = .medium, defaultCrust: String = "classic",
        chiliSauce: Bool = false, ketchup: Bool = false, extras: [String] = []
    ) {
        self.name = name
        self.prices = prices
        self.defaultSize = defaultSize
        self.defaultCrust = defaultCrust
        self.chiliSauce = chiliSauce
        self.ketchup = ketchup
        self.extras = extras
    }

    /// The offered sizes, smallest first.
    public var sizes: [Size] { prices.keys.sorted() }
}
