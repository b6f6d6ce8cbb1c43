/// The running figures of a period of the audit log: each order change folded in (``add(before:after:)``), in
/// sequence, makes the period's Z report (CONTRACT section 18). A pure function of the entries, so the daemon, the
/// X report, `report.verify` and anyone with the log get the same figures.
///
/// An order's sale is **booked** while it is placed or further on (not while open, not once cancelled): each change
/// adds what it booked after less what it booked before, so an order placed and cancelled in one period adds
/// nothing, and a cancellation of an order booked in an earlier period is a negative line in this one. Taxes are
/// the orders' own per-rate figures summed, never recomputed from a sum. Payments and refunds count when recorded,
/// whatever the order's status. A channel is the device that created the order, or `socket:USER`.
public struct ReportFigures: Sendable, Equatable {
    /// Orders placed in the period.
    public var placed = ZReport.Count()
    /// Booked orders cancelled in the period.
    public var cancelled = ZReport.Count()
    /// Per rate: gross and tax.
    public var taxes: [TaxRate: (gross: Int64, tax: Int64)] = [:]
    /// Discounts and fees on booked orders.
    public var discounts: Int64 = 0
    /// Fees on booked orders.
    public var fees: Int64 = 0
    /// Per tender: payments and refunds (positive).
    public var tenders: [Tender: (payments: Int64, refunds: Int64)] = [:]
    /// Per channel: gross booked and payments less refunds.
    public var channels: [String: (gross: Int64, payments: Int64)] = [:]
    /// How much every order's balance moved in the period.
    public var balanceChange: Int64 = 0
    /// The entries folded in (order changes and others alike): the last one's sequence number.
    public var lastSeq: Int64 = 0

    /// One order's figures at one rate in the period (``lines``): a report's CSV line.
    public struct Line: Sendable, Equatable {
        /// The order.
        public var order: Int64
        /// Its channel.
        public var channel: String
        /// The rate.
        public var rate: TaxRate
        /// Gross booked at the rate in the period (negative for a cancellation of an order booked before).
        public var gross: Int64
        /// The VAT in it.
        public var tax: Int64
    }

    /// Whether ``lines`` are kept (a CSV wants them; the daemon's Z does not).
    public let keepsLines: Bool
    private var lineIndex: [LineKey: Int] = [:]
    /// Per order and rate, in the order first booked: what ``taxes`` sums.
    public private(set) var lines: [Line] = []

    private struct LineKey: Hashable {
        var order: Int64
        var rate: TaxRate
    }

    /// Nothing yet; with `keepingLines`, each order's figures per rate are kept too.
    public init(keepingLines: Bool = false) { keepsLines = keepingLines }

    private mutating func book(_ cart: Cart, _ line: TaxLine, sign: Int64, channel: String) {
        taxes[line.rate, default: (0, 0)].gross &+= sign &* line.gross
        taxes[line.rate, default: (0, 0)].tax &+= sign &* line.tax
        guard keepsLines else { return }
        let key = LineKey(order: cart.id, rate: line.rate)
        if let index = lineIndex[key] {
            lines[index].gross &+= sign &* line.gross
            lines[index].tax &+= sign &* line.tax
        } else {
            lineIndex[key] = lines.count
            lines.append(
                Line(
                    order: cart.id, channel: channel, rate: line.rate, gross: sign &* line.gross, tax: sign &* line.tax)
            )
        }
    }

    /// Whether the order's sale counts: placed or further on.
    public static func isBooked(_ cart: Cart?) -> Bool {
        guard let cart else { return false }
        return cart.status != .open && cart.status != .cancelled
    }

    /// Who sold the order: the device that created it, or `socket:USER`.
    public static func channel(of cart: Cart) -> String {
        guard let creator = cart.history.first?.actor else { return "unknown" }
        return creator.device ?? "socket:\(creator.name)"
    }

    /// Folds in one order change: the order as it was before (nil for a creation) and after.
    public mutating func add(before: Cart?, after: Cart) {
        let wasBooked = Self.isBooked(before)
        let isBooked = Self.isBooked(after)
        let channel = Self.channel(of: after)
        if !wasBooked, isBooked {
            placed.count += 1
            placed.gross &+= after.total
        }
        if wasBooked, after.status == .cancelled, let before {
            cancelled.count += 1
            cancelled.gross &+= before.total
        }
        if wasBooked || isBooked {
            var grossMoved: Int64 = 0
            if wasBooked, let before {
                for line in before.taxes {
                    book(before, line, sign: -1, channel: channel)
                    grossMoved &-= line.gross
                }
                discounts &-= before.discountTotal
                fees &-= before.feeTotal
            }
            if isBooked {
                for line in after.taxes {
                    book(after, line, sign: 1, channel: channel)
                    grossMoved &+= line.gross
                }
                discounts &+= after.discountTotal
                fees &+= after.feeTotal
            }
            if grossMoved != 0 { channels[channel, default: (0, 0)].gross &+= grossMoved }
        }
        if after.payments != (before?.payments ?? []) {
            let known = Set(before?.payments.map(\.id) ?? [])
            for payment in after.payments where !known.contains(payment.id) {
                if payment.amount >= 0 {
                    tenders[payment.tender, default: (0, 0)].payments &+= payment.amount
                } else {
                    tenders[payment.tender, default: (0, 0)].refunds &+= 0 &- payment.amount
                }
                channels[channel, default: (0, 0)].payments &+= payment.amount
            }
        }
        balanceChange &+= after.balance &- (before?.balance ?? 0)
    }

    /// The report these figures make: numbered `number`, covering `firstSeq...lastSeq`, the open balance carried
    /// from the previous report's.
    public func report(number: Int64, at: String, firstSeq: Int64, lastSeq: Int64, previousBalance: Int64) -> ZReport {
        ZReport(
            number: number, at: at, firstSeq: firstSeq, lastSeq: lastSeq, placed: placed, cancelled: cancelled,
            taxes: taxes.sorted { $0.key < $1.key }.map { rate, sums in
                ZReport.Tax(
                    rate: rate.name, basisPoints: rate.basisPoints, gross: sums.gross, net: sums.gross &- sums.tax,
                    tax: sums.tax)
            },
            discounts: discounts, fees: fees,
            tenders: Tender.allCases.compactMap { tender in
                tenders[tender].map {
                    ZReport.TenderLine(tender: tender.rawValue, payments: $0.payments, refunds: $0.refunds)
                }
            },
            channels: channels.sorted { $0.key < $1.key }.map {
                ZReport.Channel(channel: $0.key, gross: $0.value.gross, payments: $0.value.payments)
            },
            openBalance: previousBalance &+ balanceChange)
    }

    /// Equal when they make the same report (the lines kept for a CSV aside).
    public static func == (lhs: ReportFigures, rhs: ReportFigures) -> Bool {
        lhs.report(number: 0, at: "", firstSeq: 0, lastSeq: lhs.lastSeq, previousBalance: 0)
            == rhs.report(number: 0, at: "", firstSeq: 0, lastSeq: rhs.lastSeq, previousBalance: 0)
    }
}
