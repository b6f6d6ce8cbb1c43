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
    /// Price of one pizza (kind at size plus extras), in minor units, VAT included.
    public var unitPrice: Int64
    /// The VAT rate it is sold at (`menu.pizzaTax` when it was made; ``TaxRate/none`` before taxes existed).
    public var tax: TaxRate
    /// A note for the kitchen ("well done"), at most ``Cart/noteBytes`` bytes.
    public var note: String?

    /// What is made beside the kind and size, as the kitchen reads it: the crust, the sauces, each extra with a
    /// `+` (`thin`, `chili`, `+olives`).
    public var details: [String] {
        var details = [crust]
        if chiliSauce { details.append("chili") }
        if ketchup { details.append("ketchup") }
        return details + extras.map { "+" + $0 }
    }

    /// The pizza in short: `chicken L thin, chili, +olives` (`pizzactl order show`, and the kitchen ticket's lines).
    public var inShort: String { "\(kind) \(size.rawValue) " + details.joined(separator: ", ") }

    /// The pizza on a board's narrow ticket: the quantity when more than one, the crust only when it is not the
    /// classic one, the sauces and extras with a `+` (`2× chicken L +olives +chili`). The board page's script
    /// writes the same (its `item` function).
    public var onBoard: String {
        var text = (quantity > 1 ? "\(quantity)× " : "") + kind + " " + size.rawValue
        if crust != "classic" { text += " " + crust }
        for extra in extras { text += " +" + extra }
        if chiliSauce { text += " +chili" }
        if ketchup { text += " +ketchup" }
        return text
    }

    /// The most a pizza's unit price can be read as from a stored or sent order (cents): far above any menu's (a
    /// kind and all its extras at the configuration's 10,000,000 each), low enough that a line of the largest
    /// quantity, and a cart of lines, adds up without overflow.
    public static let maximumUnitPrice: Int64 = 1 << 40

    /// Price of the line: unit price times quantity. Every path that makes a pizza bounds both (the builder, the
    /// wire form, the table's checks) but a price edited into the database with `sqlite3` is not: past what a
    /// price holds it reads as `Int64.max` rather than trap.
    public var price: Int64 {
        let (product, overflow) = unitPrice.multipliedReportingOverflow(by: Int64(quantity))
        return overflow ? .max : product
    }

    /// Builds a pizza from stored fields without validating them (for storage reading what it wrote).
    public init(
        kind: String, size: Size, crust: String, chiliSauce: Bool, ketchup: Bool, extras: [String], quantity: Int,
        unitPrice: Int64, tax: TaxRate = .none, note: String? = nil
    ) {
        self.kind = kind
        self.size = size
        self.crust = crust
        self.chiliSauce = chiliSauce
        self.ketchup = ketchup
        self.extras = extras
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.tax = tax
        self.note = note
    }
}
