/// A Z report (CONTRACT section 18): the figures of the audit entries `firstSeq...lastSeq`, those after the previous
/// Z's entry up to its own. An X report is the same figures so far (`lastSeq` the newest entry, `number` the one the
/// next Z will have), closing nothing.
///
/// Its figures are a pure function of those entries (``ReportFigures``) and of the previous report's `openBalance`,
/// so anyone holding the audit log, or the centre's copy of it, recomputes them (`report.verify`).
public struct ZReport: Sendable, Equatable, Codable {
    /// Orders placed, or cancelled, in the period, and their gross.
    public struct Count: Sendable, Equatable, Codable {
        /// How many.
        public var count: Int64
        /// Their gross (VAT included), in cents: at placing for `placed`, as booked before the cancellation for
        /// `cancelled`.
        public var gross: Int64

        /// A count.
        public init(count: Int64 = 0, gross: Int64 = 0) {
            self.count = count
            self.gross = gross
        }
    }

    /// One VAT rate's sales in the period: the orders' own per-rate figures summed (a cancellation of an order
    /// booked earlier subtracts its lines).
    public struct Tax: Sendable, Equatable, Codable {
        /// The rate's name.
        public var rate: String
        /// Its basis points.
        public var basisPoints: Int64
        /// Gross, VAT included, in cents.
        public var gross: Int64
        /// gross - tax.
        public var net: Int64
        /// The VAT.
        public var tax: Int64

        /// A rate's line.
        public init(rate: String, basisPoints: Int64, gross: Int64, net: Int64, tax: Int64) {
            self.rate = rate
            self.basisPoints = basisPoints
            self.gross = gross
            self.net = net
            self.tax = tax
        }
    }

    /// What came in, and went back out, by one tender.
    public struct TenderLine: Sendable, Equatable, Codable {
        /// `cash`, `card`, `online`, `platform`, `voucher`.
        public var tender: String
        /// Payments recorded in the period, in cents.
        public var payments: Int64
        /// Refunds recorded in the period, in cents (positive).
        public var refunds: Int64

        /// A tender's line.
        public init(tender: String, payments: Int64, refunds: Int64) {
            self.tender = tender
            self.payments = payments
            self.refunds = refunds
        }
    }

    /// What one channel (the device that created the order, or `socket:USER`) sold and took.
    public struct Channel: Sendable, Equatable, Codable {
        /// The device's name, or `socket:USER`.
        public var channel: String
        /// The gross booked in the period for its orders.
        public var gross: Int64
        /// Payments less refunds recorded in the period for its orders.
        public var payments: Int64

        /// A channel's line.
        public init(channel: String, gross: Int64, payments: Int64) {
            self.channel = channel
            self.gross = gross
            self.payments = payments
        }
    }

    /// 1, 2, … without a gap (for an X report, the number the next Z will have).
    public var number: Int64
    /// When it was taken (ISO-8601).
    public var at: String
    /// The first audit entry it covers.
    public var firstSeq: Int64
    /// The last: the Z's own entry (for an X report, the newest entry).
    public var lastSeq: Int64
    /// Orders placed in the period.
    public var placed: Count
    /// Orders booked (placed or later) cancelled in the period, wherever they were placed.
    public var cancelled: Count
    /// Per VAT rate, by rate.
    public var taxes: [Tax]
    /// Discounts given on booked orders, in cents.
    public var discounts: Int64
    /// Fees charged on booked orders, in cents.
    public var fees: Int64
    /// Per tender, in the order of ``Tender/allCases``.
    public var tenders: [TenderLine]
    /// Per channel, by name.
    public var channels: [Channel]
    /// The balance of every order at the report's last entry (owed less overpaid), in cents.
    public var openBalance: Int64

    /// A report from its fields.
    public init(
        number: Int64, at: String, firstSeq: Int64, lastSeq: Int64, placed: Count, cancelled: Count, taxes: [Tax],
        discounts: Int64, fees: Int64, tenders: [TenderLine], channels: [Channel], openBalance: Int64
    ) {
        self.number = number
        self.at = at
        self.firstSeq = firstSeq
        self.lastSeq = lastSeq
        self.placed = placed
        self.cancelled = cancelled
        self.taxes = taxes
        self.discounts = discounts
        self.fees = fees
        self.tenders = tenders
        self.channels = channels
        self.openBalance = openBalance
    }

    /// The gross of the period: the taxes' gross summed.
    public var gross: Int64 { taxes.reduce(0) { $0 &+ $1.gross } }

    /// The name of the first figure that differs from `other`'s (`taxes[food].gross`, `tenders[cash].payments`),
    /// or nil when every figure is the same.
    public func firstDifference(from other: ZReport) -> String? {
        if number != other.number { return "number" }
        if firstSeq != other.firstSeq { return "firstSeq" }
        if lastSeq != other.lastSeq { return "lastSeq" }
        if placed.count != other.placed.count { return "placed.count" }
        if placed.gross != other.placed.gross { return "placed.gross" }
        if cancelled.count != other.cancelled.count { return "cancelled.count" }
        if cancelled.gross != other.cancelled.gross { return "cancelled.gross" }
        if let name = Self.difference(
            taxes, other.taxes, key: { "\($0.rate)" },
            figures: { tax in
                [("gross", tax.gross), ("net", tax.net), ("tax", tax.tax), ("basisPoints", tax.basisPoints)]
            })
        {
            return "taxes" + name
        }
        if discounts != other.discounts { return "discounts" }
        if fees != other.fees { return "fees" }
        if let name = Self.difference(
            tenders, other.tenders, key: \.tender,
            figures: { line in
                [("payments", line.payments), ("refunds", line.refunds)]
            })
        {
            return "tenders" + name
        }
        if let name = Self.difference(
            channels, other.channels, key: \.channel,
            figures: { line in
                [("gross", line.gross), ("payments", line.payments)]
            })
        {
            return "channels" + name
        }
        if openBalance != other.openBalance { return "openBalance" }
        return nil
    }

    /// The first line (by key) whose figures differ, as `[key].figure` (or `[key]` for a line on one side only).
    private static func difference<Line>(
        _ mine: [Line], _ theirs: [Line], key: (Line) -> String, figures: (Line) -> [(String, Int64)]
    ) -> String? {
        let keys = Set(mine.map(key)).union(theirs.map(key)).sorted()
        for name in keys {
            guard let left = mine.first(where: { key($0) == name }),
                let right = theirs.first(where: { key($0) == name })
            else { return "[\(name)]" }
            for ((figure, a), (_, b)) in zip(figures(left), figures(right)) where a != b {
                return "[\(name)].\(figure)"
            }
        }
        return nil
    }
}
