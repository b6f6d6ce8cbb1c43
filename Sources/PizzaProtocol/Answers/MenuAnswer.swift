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
        /// Whether it may be ordered now (false while taken off the menu, CONTRACT section 17).
        public var available: Bool

        /// A kind.
        public init(
            name: String, prices: Members<Int64>, size: String, crust: String, chiliSauce: Bool, ketchup: Bool,
            extras: [String], available: Bool = true
        ) {
            self.available = available
            self.name = name
            self.prices = prices
            self.size = size
            self.crust = crust
            self.chiliSauce = chiliSauce
            self.ketchup = ketchup
            self.extras = extras
        }
    }

    /// A product on the menu (CONTRACT section 17).
    public struct Product: Codable, Sendable, Equatable {
        /// Its id on the wire (`cola-033`).
        public var id: String
        /// What a customer reads.
        public var name: String
        /// Its category (`drinks`).
        public var category: String
        /// The price of one, VAT included, in cents.
        public var price: Int64
        /// Its VAT rate's name.
        public var tax: String
        /// Its options and what each adds, in cents.
        public var options: Members<Int64>
        /// Whether it may be ordered now.
        public var available: Bool

        /// A product entry.
        public init(
            id: String, name: String, category: String, price: Int64, tax: String, options: Members<Int64>,
            available: Bool = true
        ) {
            self.available = available
            self.id = id
            self.name = name
            self.category = category
            self.price = price
            self.tax = tax
            self.options = options
        }
    }

    /// A fee the menu adds (`{amount, tax}`).
    public struct FeeEntry: Codable, Sendable, Equatable {
        /// In cents.
        public var amount: Int64
        /// Its VAT rate's name.
        public var tax: String

        /// A fee entry.
        public init(amount: Int64, tax: String) {
            self.amount = amount
            self.tax = tax
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
    /// What the shop sells beside pizzas.
    public var products: [Product]
    /// The VAT rates in basis points.
    public var taxes: Members<Int64>
    /// The rate pizzas are sold at.
    public var pizzaTax: String
    /// The fees by kind (`delivery`).
    public var fees: Members<FeeEntry>
    /// Every item taken off the menu for now (kinds, products and extras), sorted.
    public var unavailable: [String]

    /// An answer.
    public init(
        currency: String, kinds: [Kind], crusts: [String], extras: Members<Int64>, sizes: [String],
        products: [Product] = [], taxes: Members<Int64> = Members([("none", 0)]), pizzaTax: String = "none",
        fees: Members<FeeEntry> = Members([]), unavailable: [String] = []
    ) {
        self.unavailable = unavailable
        self.currency = currency
        self.kinds = kinds
        self.crusts = crusts
        self.extras = extras
        self.sizes = sizes
        self.products = products
        self.taxes = taxes
        self.pizzaTax = pizzaTax
        self.fees = fees
    }

    /// The menu's answer, with the items in `unavailable` marked so.
    public init(_ menu: Menu, unavailable: [String] = []) {
        let off = Set(unavailable)
        self.init(
            currency: menu.currency,
            kinds: menu.kinds.map { kind in
                Kind(
                    name: kind.name, prices: Members(kind.sizes.map { ($0.rawValue, kind.prices[$0]!) }),
                    size: kind.defaultSize.rawValue, crust: kind.defaultCrust, chiliSauce: kind.chiliSauce,
                    ketchup: kind.ketchup, extras: kind.extras, available: !off.contains(kind.name))
            },
            crusts: menu.crusts, extras: Members(menu.extras.keys.sorted().map { ($0, menu.extras[$0]!) }),
            sizes: Size.allCases.map(\.rawValue),
            products: menu.products.map { product in
                Product(
                    id: product.id, name: product.name, category: product.category, price: product.price,
                    tax: product.tax,
                    options: Members(product.options.keys.sorted().map { ($0, product.options[$0]!) }),
                    available: !off.contains(product.id))
            },
            taxes: Members(menu.taxes.keys.sorted().map { ($0, menu.taxes[$0]!) }), pizzaTax: menu.pizzaTax,
            fees: Members(
                menu.deliveryFee.map { [(Fee.delivery, FeeEntry(amount: $0.amount, tax: $0.tax.name))] } ?? []),
            unavailable: unavailable.sorted())
    }
}
