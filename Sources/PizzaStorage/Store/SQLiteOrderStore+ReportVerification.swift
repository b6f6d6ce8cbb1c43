import PizzaCore
import PizzaWire
import SQLite

/// What `report.verify` found.
public struct ReportVerification: Sendable, Equatable {
    /// The report.
    public var number: Int64
    /// Whether its figures are what its entries make, and the tables agree with the log.
    public var ok: Bool
    /// The first figure that differs (`taxes[food].gross`), or the row that disagrees with its entry.
    public var firstDifference: String?
}

extension Database {
    /// ``SQLiteOrderStore/verifyReport(number:)`` on this connection.
    func verifyReport(number: Int64) throws -> ReportVerification? {
        guard
            let (first, last, text) = try statement(
                "SELECT first_seq, last_seq, figures FROM z_reports WHERE number = ?"
            ).first([number], { row in (row.int64(0), row.int64(1), row.string(2)) })
        else { return nil }
        func differs(_ what: String) -> ReportVerification {
            ReportVerification(number: number, ok: false, firstDifference: what)
        }
        let entry = try statement("SELECT action, after FROM audit_log WHERE seq = ?").first([last]) { row in
            (row.string(0), row.string(1))
        }
        guard let entry, entry.0 == ShopChange.Kind.zReport.rawValue,
            let logged = try? SQLiteOrderStore.decodeReport(entry.1)
        else { return differs("audit entry \(last) is not this report's z_report entry") }
        let stored = try SQLiteOrderStore.decodeReport(text)
        // The open balance carried from the previous report, as its own entry (the one before this period) has it.
        var previousBalance: Int64 = 0
        if number > 1 {
            let previous = try statement("SELECT action, after FROM audit_log WHERE seq = ?").first([first - 1]) {
                row in (row.string(0), row.string(1))
            }
            guard let previous, previous.0 == ShopChange.Kind.zReport.rawValue,
                let report = try? SQLiteOrderStore.decodeReport(previous.1), report.number == number - 1
            else { return differs("audit entry \(first - 1) is not report \(number - 1)'s entry") }
            previousBalance = report.openBalance
        }
        let recomputed: ZReport
        do {
            recomputed = try reportFigures(after: first - 1, through: last - 1).report(
                number: number, at: logged.at, firstSeq: first, lastSeq: last, previousBalance: previousBalance)
        } catch let error as ReportError {
            return differs("\(error)")
        }
        if let name = recomputed.firstDifference(from: logged) {
            return differs(
                "\(name): \(Self.figure(name, of: recomputed)) from the entries, but the report says \(Self.figure(name, of: logged))"
            )
        }
        if let name = logged.firstDifference(from: stored) {
            return differs("\(name): the z_reports row differs from the report's audit entry")
        }
        if let row = try moneyRowDisagreeing(entriesAfter: first - 1, through: last) { return differs(row) }
        return ReportVerification(number: number, ok: true, firstDifference: nil)
    }

    /// A named figure's value in `report`, for the sentence (`-` for a line it lacks).
    private static func figure(_ name: String, of report: ZReport) -> String {
        guard let json = try? JSONValueEncoder().encode(report) else { return "-" }
        var value: JSONValue? = json
        var rest = Substring(name)
        while !rest.isEmpty, let current = value {
            if rest.hasPrefix(".") { rest = rest.dropFirst() }
            if rest.hasPrefix("[") {
                let key = rest.dropFirst().prefix { $0 != "]" }
                rest = rest.dropFirst(key.count + 2)
                value = current.arrayValue?.first { line in
                    [line["rate"], line["tender"], line["channel"]].contains { $0?.stringValue == String(key) }
                }
            } else {
                let key = rest.prefix { $0 != "." && $0 != "[" }
                rest = rest.dropFirst(key.count)
                value = current[String(key)]
            }
        }
        return value.map { $0.jsonText } ?? "-"
    }

    /// The first payment, discount or fee row of an order changed in `after+1...through` (all orders when nil)
    /// that is not what the order's last audit entry records, said as a sentence; nil when every row agrees.
    func moneyRowDisagreeing(entriesAfter after: Int64? = nil, through: Int64 = .max) throws -> String? {
        let orders =
            after == nil
            ? "SELECT order_id FROM audit_log WHERE order_id IS NOT NULL GROUP BY order_id"
            : "SELECT DISTINCT order_id FROM audit_log WHERE seq > ?1 AND seq <= ?2 AND order_id IS NOT NULL"
        let arguments: [any SQLBindable] = after.map { [$0, through] } ?? []
        // Each order's last entry, and what it records against the rows.
        let last = """
            WITH touched(id) AS (\(orders)),
                 last(id, seq, after) AS (
                   SELECT t.id, a.seq, a.after FROM touched t
                   JOIN audit_log a ON a.seq = (SELECT max(seq) FROM audit_log WHERE order_id = t.id))
            """
        let lines = [
            ("payments", "payment", "AND j.value ->> 'tender' = x.tender"), ("discounts", "discount", ""),
        ]
        for (table, noun, more) in lines {
            if let (id, order, seq) = try statement(
                last + """
                    SELECT x.id, x.cart_id, l.seq FROM \(table) x JOIN last l ON l.id = x.cart_id
                    WHERE NOT EXISTS (SELECT 1 FROM json_each(l.after, '$.\(table)') j
                                      WHERE j.value ->> 'id' = x.id AND j.value ->> 'amount' = x.amount \(more))
                    UNION ALL
                    SELECT NULL, l.id, l.seq FROM last l
                    WHERE coalesce(json_array_length(l.after, '$.\(table)'), 0)
                          <> (SELECT count(*) FROM \(table) WHERE cart_id = l.id)
                    LIMIT 1
                    """
            ).first(arguments, { row in (row.optionalInt64(0), row.int64(1), row.int64(2)) }) {
                return id.map { "\(noun) \($0) of order \(order) is not what audit entry \(seq) records" }
                    ?? "order \(order)'s \(table) are not the ones audit entry \(seq) records"
            }
        }
        if let (order, seq) = try statement(
            last + """
                SELECT l.id, l.seq FROM last l
                WHERE coalesce(json_array_length(l.after, '$.fees'), 0) <> (SELECT count(*) FROM fees WHERE cart_id = l.id)
                   OR coalesce((SELECT sum(j.value ->> 'amount') FROM json_each(l.after, '$.fees') j), 0)
                      <> (SELECT coalesce(sum(amount), 0) FROM fees WHERE cart_id = l.id)
                LIMIT 1
                """
        ).first(arguments, { row in (row.int64(0), row.int64(1)) }) {
            return "order \(order)'s fees are not the ones audit entry \(seq) records"
        }
        return nil
    }
}
