/// Something the shop sells beside pizzas, as the menu lists it (`menu.products`): a drink, a side, a dessert.
///
/// A product is made by the same ``PizzaFactory`` as pizzas (``PizzaFactory/product(_:quantity:options:note:)``):
/// a second family of the menu, not a parallel path. A new product is a menu entry, not code.
public struct MenuProduct: Sendable, Equatable {
    /// The product's id, its name on the wire (`cola-033`).
    public var id: String
    /// What a customer and the kitchen read (`Cola 0.33 l`).
    public var name: String
    /// Free text that groups it (`drinks`, `sides`, `desserts`); printers may print by category.
    public var category: String
    /// The price of one, VAT included, in cents.
    public var price: Int64
    /// The name of its VAT rate in `menu.taxes`; its options take the same.
    public var tax: String
    /// The options it may have, each with the price it adds to one (`extra-dip: 50`).
    public var options: [String: Int64]

    /// A product entry.
    public init(
        id: String, name: String, category: String, price: Int64, tax: String, options: [String: Int64] = [:]
    ) {
        self.id = id
        self.name = name
        self.category = category
        self.price = price
        self.tax = tax
        self.options = options
    }
}

/// A product line of an order: what was sold, how many, with which options, at what price and VAT rate.
public struct Product: Sendable, Equatable {
    /// The allowed quantities of one product line.
    public static let quantityRange = 1...100

    /// The product's id on the menu.
    public var product: String
    /// Its name when it was sold.
    public var name: String
    /// Its category when it was sold.
    public var category: String
    /// How many.
    public var quantity: Int
    /// The chosen options, sorted, each at most once.
    public var options: [String]
    /// The price of one with its options, VAT included, in cents.
    public var unitPrice: Int64
    /// The VAT rate it was sold at.
    public var tax: TaxRate
    /// A note for the kitchen, at most ``Cart/noteBytes`` bytes.
    public var note: String?

    /// A product line from its fields, as storage reads it (not checked).
    public init(
        product: String, name: String, category: String, quantity: Int, options: [String], unitPrice: Int64,
        tax: TaxRate, note: String? = nil
    ) {
        self.product = product
        self.name = name
        self.category = category
        self.quantity = quantity
        self.options = options
        self.unitPrice = unitPrice
        self.tax = tax
        self.note = note
    }

    /// The line's price: unit price times quantity (`Int64.max` past what a price holds, as ``Pizza/price``).
    public var price: Int64 {
        let (product, overflow) = unitPrice.multipliedReportingOverflow(by: Int64(quantity))
        return overflow ? .max : product
    }

    /// The line in short, as the kitchen reads it: `2× Cola 0.33 l +ice`.
    public var inShort: String {
        (quantity > 1 ? "\(quantity)× " : "") + name + options.map { " +" + $0 }.joined()
    }
}

/// A product line of a cart, with its item id (from the same numbers as pizza items: `order_items.id`).
public struct CartProduct: Sendable, Equatable {
    /// The item id.
    public var id: Int64
    /// The product line.
    public var product: Product

    /// The item `id` holding `product`.
    public init(id: Int64, product: Product) {
        self.id = id
        self.product = product
    }
}

extension PizzaFactory {
    /// The product `id` on the menu, `quantity` of it with `options`, priced and with its VAT rate; throws a
    /// ``PizzaError`` naming the field at fault (an unknown product or option, a quantity out of range). The note is
    /// checked where the line joins a cart (``Cart/add(_:itemID:at:)-(Product,_,_)``).
    public func product(
        _ id: String, quantity: Int = 1, options: [String] = [], note: String? = nil
    ) throws(PizzaError) -> Product {
        guard let entry = menu.product(id: id) else {
            throw .unknownProduct(id, known: menu.products.map(\.id))
        }
        guard Product.quantityRange.contains(quantity) else {
            throw .productQuantityOutOfRange(quantity, allowed: Product.quantityRange)
        }
        let unique = options.count < 2 ? options : Array(Set(options)).sorted()
        var unitPrice = entry.price
        for option in unique {
            guard let price = entry.options[option] else {
                throw .unknownOption(option, product: id, allowed: entry.options.keys.sorted())
            }
            unitPrice += price
        }
        return Product(
            product: entry.id, name: entry.name, category: entry.category, quantity: quantity, options: unique,
            unitPrice: unitPrice, tax: menu.rate(named: entry.tax), note: note)
    }
}
