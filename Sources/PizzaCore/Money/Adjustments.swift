/// A fee on an order (`{kind: "delivery", amount, tax}`): added to its total, never discounted.
public struct Fee: Sendable, Equatable {
    /// What it is for: `delivery`.
    public var kind: String
    /// Its amount, VAT included, in cents.
    public var amount: Int64
    /// The VAT rate it is charged at.
    public var tax: TaxRate

    /// A fee of `amount` for `kind` at `tax`.
    public init(kind: String, amount: Int64, tax: TaxRate) {
        self.kind = kind
        self.amount = amount
        self.tax = tax
    }

    /// The kind of the fee every delivery order carries (`menu.fees.delivery`).
    public static let delivery = "delivery"
}

/// A discount given on an order or one of its items (`order.discount`).
public struct Discount: Sendable, Equatable {
    /// The discount's id (from the order lines' numbers).
    public var id: Int64
    /// What it takes off, in cents (a percent discount's amount as computed when it was given).
    public var amount: Int64
    /// The whole percent asked for (1-100), if it was given as a percent.
    public var percent: Int?
    /// The item it applies to; nil for the whole order (shared among its rates).
    public var item: Int64?
    /// Why it was given.
    public var reason: String
    /// Who gave it.
    public var by: ChangeActor
    /// When it was given.
    public var at: Timestamp

    /// A discount from its fields.
    public init(
        id: Int64, amount: Int64, percent: Int?, item: Int64?, reason: String, by: ChangeActor, at: Timestamp
    ) {
        self.id = id
        self.amount = amount
        self.percent = percent
        self.item = item
        self.reason = reason
        self.by = by
        self.at = at
    }
}

/// How a payment was made.
public enum Tender: String, Sendable, CaseIterable, Codable {
    /// Cash at the counter or to the driver.
    case cash
    /// A card terminal.
    case card
    /// Paid online before the order reached the shop.
    case online
    /// Collected by a delivery platform.
    case platform
    /// A voucher or gift card.
    case voucher
}

/// A payment on an order, or a refund of one (a negative amount that `refunds` the payment it names).
public struct Payment: Sendable, Equatable {
    /// The payment's id (from the order lines' numbers).
    public var id: Int64
    /// How it was paid (a refund: the refunded payment's tender).
    public var tender: Tender
    /// The amount in cents: positive for a payment, negative for a refund.
    public var amount: Int64
    /// When it was recorded.
    public var at: Timestamp
    /// Who recorded it.
    public var by: ChangeActor
    /// The till's or platform's reference, unique in the order: the same `ref` again is the same payment.
    public var ref: String?
    /// For a refund: the payment it refunds.
    public var refunds: Int64?
    /// For a refund: why.
    public var reason: String?

    /// A payment from its fields.
    public init(
        id: Int64, tender: Tender, amount: Int64, at: Timestamp, by: ChangeActor, ref: String? = nil,
        refunds: Int64? = nil, reason: String? = nil
    ) {
        self.id = id
        self.tender = tender
        self.amount = amount
        self.at = at
        self.by = by
        self.ref = ref
        self.refunds = refunds
        self.reason = reason
    }
}
