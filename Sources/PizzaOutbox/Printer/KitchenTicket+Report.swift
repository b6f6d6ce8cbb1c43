public import Foundation
public import PizzaCore

extension KitchenTicket {
    /// A Z (or X) report on paper: its number and period, orders placed and cancelled, gross, net and VAT per rate,
    /// discounts and fees, payments and refunds per tender, takings per channel, and what is still owed; amounts in
    /// the currency's units with two decimals, right-aligned.
    public init(
        report: ZReport, title: String, columns: Int, reprint: Bool, currency: String? = nil,
        timeZone: TimeZone = .current
    ) {
        var lines: [Line] = []
        func add(_ text: String, _ style: Style = .normal) {
            let width = style == .large ? columns / 2 : columns
            for piece in Self.wrap(EscPos.printable(text), width: width) {
                lines.append(Line(text: piece, style: style))
            }
        }
        func amount(_ label: String, _ cents: Int64) {
            let value = Self.amount(cents)
            let room = max(1, columns - value.count - 1)
            let name = String(EscPos.printable(label).prefix(room))
            lines.append(
                Line(
                    text: name + String(repeating: " ", count: columns - name.count - value.count) + value,
                    style: .normal))
        }
        if reprint { add("REPRINT", .large) }
        add(title, .large)
        add("No. \(report.number)", .large)
        add(Self.time(Timestamp(iso8601: report.at) ?? .now(), timeZone: timeZone))
        add("Entries \(report.firstSeq)-\(report.lastSeq)")
        if let currency { add("Amounts in \(currency)") }
        add("")
        add("Orders placed: \(report.placed.count)", .bold)
        amount("  gross at placing", report.placed.gross)
        add("Cancelled: \(report.cancelled.count)", .bold)
        amount("  gross cancelled", report.cancelled.gross)
        add("")
        add("VAT", .bold)
        for tax in report.taxes {
            add("\(tax.rate) \(Self.percent(tax.basisPoints))")
            amount("  gross", tax.gross)
            amount("  net", tax.net)
            amount("  VAT", tax.tax)
        }
        amount("Gross", report.gross)
        amount("Discounts", report.discounts)
        amount("Fees", report.fees)
        add("")
        add("Tenders", .bold)
        for tender in report.tenders {
            amount("\(tender.tender) in", tender.payments)
            if tender.refunds != 0 { amount("\(tender.tender) refunded", 0 &- tender.refunds) }
        }
        add("")
        add("Channels", .bold)
        for channel in report.channels {
            amount("\(channel.channel) sold", channel.gross)
            amount("\(channel.channel) taken", channel.payments)
        }
        add("")
        amount("Open balance", report.openBalance)
        self.init(lines: lines)
    }

    /// `1234` → `12.34`, `-5` → `-0.05`.
    static func amount(_ cents: Int64) -> String {
        let sign = cents < 0 ? "-" : ""
        let value = cents.magnitude
        let fraction = value % 100
        return "\(sign)\(value / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// `700` → `7%`, `550` → `5.5%`.
    static func percent(_ basisPoints: Int64) -> String {
        let whole = basisPoints / 100
        let rest = basisPoints % 100
        if rest == 0 { return "\(whole)%" }
        return "\(whole).\(rest % 10 == 0 ? String(rest / 10) : (rest < 10 ? "0\(rest)" : String(rest)))%"
    }

    /// A ticket of `lines` as they are.
    init(lines: [Line]) { self.lines = lines }
}
