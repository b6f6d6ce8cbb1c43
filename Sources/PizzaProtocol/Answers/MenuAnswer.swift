public import PizzaCore
public import PizzaWire

/// `menu.list` (and `GET /v1/menu`): kinds with prices per size, crusts, extras, currency.
public struct MenuAnswer: Answer, Equatable {
    /// One kind of pizza.
    public struct Kind: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Cents per size it comes in.
        public var prices: Members<Int64>
        /// Its default size.
        public var size: String
        /// Its default crust.
        public var crust: String
        /// Chili sauce by default.
        public var chiliSauce: Bool
        /// Ketchup by default.
        public var ketchup: Bool
        /// Its extras by default.
        public var extras: [String]

        /// A kind.
        public init(
            name: String, prices: Members<Int64>, size: String, crust: String, chiliSauce: Bool, ketchup: Bool,
            extras: [String]
        ) {
            self.name = name
            self.prices = prices
            self.size = size
            self.crust = crust
            self.chiliSauce = chiliSauce
            self.ketchup = ketchup
            self.extras = extras
        }
    }

    /// The currency (ISO 4217).
    public var currency: String
    /// The kinds.
    public var kinds: [Kind]
    /// The crusts.
    public var crusts: [String]
    /// Cents per extra.
    public var extras: Members<Int64>
    /// Every size, smallest first.
    public var sizes: [String]

    /// An answer.
    public init(currency: String, kinds: [Kind], crusts: [String], extras: Members<Int64>, sizes: [String]) {
        self.currency = currency
        self.kinds = kinds
        self.crusts = crusts
        self.extras = extras
        self.sizes = sizes
    }

    /// The menu's answer.
    public init(_ menu: Menu) {
        self.init(
            currency: menu.currency,
            kinds: menu.kinds.map { kind in
                Kind(
                    name: kind.name, prices: Members(kind.sizes.map { ($0.rawValue, kind.prices[$0]!) }),
                    size: kind.defaultSize.rawValue, crust: kind.defaultCrust, chiliSauce: kind.chiliSauce,
                    ketchup: kind.ketchup, extras: kind.extras)
            },
            crusts: menu.crusts, extras: Members(menu.extras.keys.sorted().map { ($0, menu.extras[$0]!) }),
            sizes: Size.allCases.map(\.rawValue))
    }
}
