public import PizzaCore
import PizzaWire
import SQLite

/// The Z reports (CONTRACT section 18): each the figures of a range of the audit log (``ReportFigures``), written as
/// one `z_report` entry and one `z_reports` row in one transaction.
extension SQLiteOrderStore {
    /// The last Z report's number, last entry and open balance; zeros before the first.
    struct LastReport: Sendable {
        var number: Int64 = 0
        var lastSeq: Int64 = 0
        var openBalance: Int64 = 0
    }

    /// Report `number`, as written.
    public func zReport(number: Int64) throws -> ZReport? {
        try read { db in
            try db.statement("SELECT figures FROM z_reports WHERE number = ?").first([number]) { $0.string(0) }
                .map { try Self.decodeReport($0) }
        }
    }

    /// The report a `ref` closed, if any.
    public func zReport(ref: String) throws -> ZReport? {
        try read { db in try db.zReport(ref: ref) }
    }

    /// Reports after number `after`, oldest first.
    public func zReports(after: Int64 = 0, limit: Int = 100) throws -> [ZReport] {
        try read { db in
            try db.statement("SELECT figures FROM z_reports WHERE number > ? ORDER BY number LIMIT ?")
                .map([after, limit]) { try Self.decodeReport($0.string(0)) }
        }
    }

    /// The X report: the figures since the last Z up to the newest entry, numbered as the next Z will be. Read on a
    /// reader's snapshot: the writer never waits for it.
    public func xReport(at: Timestamp = .now()) throws -> ZReport {
        try read { db in
            let (last, figures) = try sinceLastZ(db)
            return figures.report(
                number: last.number + 1, at: at.description, firstSeq: last.lastSeq + 1,
                lastSeq: max(figures.lastSeq, last.lastSeq), previousBalance: last.openBalance)
        }
    }

    /// The last Z and the figures of the entries after it, as `db`'s snapshot has them: folded on from what the
    /// last call folded (``runningFigures``) while no Z came between, so an X every few seconds reads only the
    /// entries since the one before.
    func sinceLastZ(_ db: Database) throws -> (LastReport, ReportFigures) {
        let last = try db.lastReport()
        var figures =
            runningFigures.withLock { kept in
                kept.flatMap { $0.number == last.number && $0.figures.lastSeq >= last.lastSeq ? $0.figures : nil }
            }
            ?? {
                var fresh = ReportFigures()
                fresh.lastSeq = last.lastSeq
                return fresh
            }()
        try db.fold(into: &figures, after: figures.lastSeq)
        let folded = figures
        runningFigures.withLock { kept in
            if kept == nil || kept!.number != last.number || kept!.figures.lastSeq < folded.lastSeq {
                kept = (last.number, folded)
            }
        }
        return (last, figures)
    }

    /// Recomputes report `number` from the audit log alone (its entries, and the previous report's entry for the
    /// open balance it carries) and compares it with its entry and its row; then checks that the payments,
    /// discounts and fees of the orders it covers are the ones their audit entries record. Nil when there is no
    /// such report.
    public func verifyReport(number: Int64) throws -> ReportVerification? {
        try read { db in try db.verifyReport(number: number) }
    }

    static func decodeReport(_ text: String) throws -> ZReport {
        try JSONValueDecoder().decode(ZReport.self, from: try JSONParser.parse(text))
    }

    static func encodeReport(_ report: ZReport) throws -> String { try JSONValueEncoder().encode(report).jsonText }
}

extension OrderBook {
    /// Closes the period (`report.z`): a Z report over the entries since the last one, numbered next, written as
    /// one audit entry and one `z_reports` row. With a `ref` a Z already has, that Z, unchanged.
    ///
    /// The figures are folded on a reader's snapshot first; in the writer's transaction only the entries committed
    /// since that snapshot are read and folded in (a handful), so a Z holds the writer no longer than an order.
    public func closePeriod(ref: String?, by actor: ChangeActor) async throws -> ZReport {
        try await close(ref: ref, by: actor).report
    }

    /// ``closePeriod(ref:by:)``, saying whether this call closed it (false: the Z its `ref` made before).
    public func close(ref: String?, by actor: ChangeActor) async throws -> (report: ZReport, closed: Bool) {
        if let ref {
            try Cart.checkRef(ref)
            if let done = try store.zReport(ref: ref) { return (done, false) }
        }
        let store = store
        let (last, folded) = try store.read { db in try store.sinceLastZ(db) }
        let outcome = try await repository.record(.zReport, by: actor) { transaction, sequence, at in
            let db = transaction.db
            if let ref, let done = try db.zReport(ref: ref) {
                return .unchanged(text: try SQLiteOrderStore.encodeReport(done))
            }
            let now = try db.lastReport()
            // Another Z came between the snapshot and this transaction: fold its period afresh (rare).
            var figures = now.number == last.number ? folded : try db.reportFigures(after: now.lastSeq)
            try db.fold(into: &figures, after: max(figures.lastSeq, now.lastSeq))
            let seq = try sequence()
            let report = figures.report(
                number: now.number + 1, at: at.description, firstSeq: now.lastSeq + 1, lastSeq: seq,
                previousBalance: now.openBalance)
            let text = try SQLiteOrderStore.encodeReport(report)
            try db.execute(
                literal:
                    "INSERT INTO z_reports (number, at, first_seq, last_seq, ref, figures) VALUES (?, ?, ?, ?, ?, ?)",
                [report.number, report.at, report.firstSeq, report.lastSeq, ref, text])
            return .record(text: text, before: nil, reason: ref)
        }
        return (try SQLiteOrderStore.decodeReport(outcome.text), outcome.change != nil)
    }

    /// Takes `item` off the menu or puts it back (`menu.setAvailable`): one audit entry (`availability_changed`,
    /// recording `{name, available}`) and its `availability` row, in one transaction; nothing when it already is so.
    /// The repository refuses orders that need it from then on.
    public func setAvailable(_ item: String, _ available: Bool, by actor: ChangeActor) async throws {
        _ = try await repository.record(.availabilityChanged, by: actor) { transaction, sequence, at in
            let db = transaction.db
            let was =
                try db.statement("SELECT available FROM availability WHERE item = ?").first([item]) {
                    $0.int64(0) == 1
                } ?? true
            let text = Self.availabilityText(item, available)
            if was == available { return .unchanged(text: text) }
            try db.execute(
                literal: """
                    INSERT INTO availability (item, available, changed_at, seq) VALUES (?, ?, ?, ?)
                    ON CONFLICT (item) DO UPDATE SET available = excluded.available, changed_at = excluded.changed_at,
                                                     seq = excluded.seq
                    """, [item, available ? 1 : 0, at.description, try sequence()])
            return .record(text: text, before: Self.availabilityText(item, was))
        }
        repository.availability.set(item, available: available)
    }

    /// Loads the items that are off from the `availability` table into the repository's ``Availability``.
    public func loadAvailability() throws {
        let off = try store.read { db in
            try db.statement("SELECT item FROM availability WHERE available = 0 ORDER BY item").map { $0.string(0) }
        }
        repository.availability.replace(unavailable: off)
    }

    /// `{"name":…,"available":…}`, as the entry records it.
    static func availabilityText(_ item: String, _ available: Bool) -> String {
        JSONValue.object([("name", .string(item)), ("available", .bool(available))]).jsonText
    }
}

extension Database {
    func zReport(ref: String) throws -> ZReport? {
        try statement("SELECT figures FROM z_reports WHERE ref = ?").first([ref]) { $0.string(0) }
            .map { try SQLiteOrderStore.decodeReport($0) }
    }

    /// The last report's number, last entry and open balance.
    func lastReport() throws -> SQLiteOrderStore.LastReport {
        guard
            let (number, lastSeq, text) = try statement(
                "SELECT number, last_seq, figures FROM z_reports ORDER BY number DESC LIMIT 1"
            ).first([], { row in (row.int64(0), row.int64(1), row.string(2)) })
        else { return .init() }
        return .init(number: number, lastSeq: lastSeq, openBalance: try SQLiteOrderStore.decodeReport(text).openBalance)
    }

    /// The figures of the entries after `after`, through `through` (all when nil).
    func reportFigures(after: Int64, through: Int64? = nil) throws -> ReportFigures {
        var figures = ReportFigures()
        figures.lastSeq = after
        try fold(into: &figures, after: after, through: through)
        return figures
    }

    /// Folds the order changes after `after` (through `through`) into `figures`, in sequence.
    func fold(into figures: inout ReportFigures, after: Int64, through: Int64? = nil) throws {
        try statement(
            "SELECT seq, order_id, before, after FROM audit_log WHERE seq > ? AND seq <= ? ORDER BY seq"
        ).forEach([after, through ?? .max]) { row in
            let seq = row.int64(0)
            figures.lastSeq = seq
            guard row.optionalInt64(1) != nil else { return }
            do {
                let before = try row.optionalString(2).map { try Cart(wire: JSONParser.parse($0)) }
                let after = try Cart(wire: JSONParser.parse(row.string(3)))
                figures.add(before: before, after: after)
            } catch {
                throw ReportError.unreadableEntry(seq: seq, reason: "\(error)")
            }
        }
    }
}

/// A report that could not be made or checked.
public enum ReportError: Error, Equatable, Sendable, CustomStringConvertible, DomainFailure {
    /// An audit entry's order does not read (a damaged or foreign database).
    case unreadableEntry(seq: Int64, reason: String)
    /// No report has that number.
    case noSuchReport(Int64)

    /// `internal` for a damaged entry (the log is pizzad's), `not_found` for a number.
    public var kind: FailureKind {
        switch self {
        case .unreadableEntry: .storage
        case .noSuchReport: .notFound
        }
    }

    /// The number at fault.
    public var details: FailureDetails {
        switch self {
        case .unreadableEntry: .none
        case .noSuchReport: FailureDetails(field: "number")
        }
    }

    /// The failure in a sentence.
    public var description: String {
        switch self {
        case .unreadableEntry(let seq, let reason):
            "audit entry \(seq) does not read as an order (\(reason)); pizzactl audit verify checks the log"
        case .noSuchReport(let number): "no Z report number \(number)"
        }
    }
}
