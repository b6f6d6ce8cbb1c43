import PizzaCore
import SQLite

/// Reading the audit log: entries in order, and the whole chain checked.
extension SQLiteOrderStore {
    static let auditColumns =
        "seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, prev_hash, hash, "
        + "actor_device, actor_address"
    /// ``auditColumns`` in a database from before schema 5 (a backup being restored), which has no device columns.
    static let auditColumnsBeforeDevices =
        "seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, prev_hash, hash, "
        + "NULL, NULL"

    static func auditEntry(_ row: Row) -> AuditEntry {
        AuditEntry(
            seq: row.int64(0), at: row.string(1),
            actor: ChangeActor(
                uid: UInt32(truncatingIfNeeded: row.int64(2)), name: row.string(3),
                pid: Int32(truncatingIfNeeded: row.int64(4)), device: row.optionalString(13),
                address: row.optionalString(14)),
            action: row.string(5), orderID: row.optionalInt64(6), statusAfter: row.optionalString(7),
            reason: row.optionalString(8),
            before: row.optionalString(9), after: row.string(10), prevHash: row.string(11), hash: row.string(12))
    }

    /// Audit entries after `after`, oldest first, optionally for one order.
    public func auditEntries(after: Int64 = 0, limit: Int = 100, order: Int64? = nil) throws -> [AuditEntry] {
        try read { db in
            if let order {
                return try db.statement(
                    "SELECT \(Self.auditColumns) FROM audit_log WHERE order_id = ? AND seq > ? ORDER BY seq LIMIT ?"
                ).map([order, after, limit], Self.auditEntry)
            }
            return try db.statement("SELECT \(Self.auditColumns) FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?")
                .map([after, limit], Self.auditEntry)
        }
    }

    /// Walks the whole chain, then checks that every order's status, payments, discounts and fees are the ones its
    /// last audit entry recorded (so an edit to `carts` or `payments` made behind pizzad's back shows too), and
    /// recomputes every Z report from its entries.
    public func verifyAudit() throws -> AuditVerification { try read { db in try db.verifyAuditChain() } }
}

extension Database {
    /// ``SQLiteOrderStore/verifyAudit()`` on any connection to a pizzad database (a backup's, before a restore).
    func verifyAuditChain() throws -> AuditVerification {
        let db = self
        var previous = AuditLogger.genesis
        var expectedSeq: Int64 = 1
        var count = 0
        var bad: (Int64, String)?
        try db.statement("SELECT \(auditColumnList()) FROM audit_log ORDER BY seq").forEach { row in
            guard bad == nil else { return }
            let entry = SQLiteOrderStore.auditEntry(row)
            count += 1
            if entry.seq != expectedSeq {
                bad = (entry.seq, "entry \(expectedSeq) is missing before entry \(entry.seq)")
            } else if entry.prevHash != previous {
                bad = (entry.seq, "entry \(entry.seq) does not link to the entry before it")
            } else if entry.computedHash != entry.hash {
                bad = (entry.seq, "entry \(entry.seq) was changed after it was written")
            }
            previous = entry.hash
            expectedSeq = entry.seq + 1
        }
        if let (seq, problem) = bad {
            return AuditVerification(ok: false, entries: count, firstBad: seq, problem: problem)
        }
        let mismatch = try db.statement(
            """
            SELECT c.id, c.status, a.status_after, a.seq FROM carts c
            LEFT JOIN audit_log a ON a.seq = (SELECT max(seq) FROM audit_log WHERE order_id = c.id)
            WHERE a.seq IS NULL OR a.status_after <> c.status ORDER BY c.id LIMIT 1
            """
        ).first { row in (row.int64(0), row.string(1), row.optionalString(2), row.optionalInt64(3)) }
        if let (id, status, audited, seq) = mismatch {
            let problem =
                audited.map { "order \(id) is \(status) in carts but its last audit entry says \($0)" }
                ?? "order \(id) has no audit entry"
            return AuditVerification(ok: false, entries: count, firstBad: seq, problem: problem)
        }
        // Payments, discounts and fees, as statuses: each order's rows are what its last entry records.
        if try hasTable("payments"), let problem = try moneyRowDisagreeing() {
            return AuditVerification(ok: false, entries: count, firstBad: nil, problem: problem)
        }
        // Every Z report is what its entries make (CONTRACT section 18).
        if try hasTable("z_reports") {
            let numbers = try statement("SELECT number FROM z_reports ORDER BY number").map { $0.int64(0) }
            for number in numbers {
                guard let result = try verifyReport(number: number), !result.ok else { continue }
                return AuditVerification(
                    ok: false, entries: count, firstBad: nil,
                    problem: "Z report \(number): \(result.firstDifference ?? "differs")")
            }
        }
        return AuditVerification(ok: true, entries: count, firstBad: nil, problem: nil)
    }
}

extension Database {
    /// The columns ``SQLiteOrderStore/auditEntry(_:)`` reads, as this database has them: a backup from before schema 5
    /// has no device columns, and reads as NULL there.
    func auditColumnList() throws -> String {
        let hasDevices =
            try statement("SELECT count(*) FROM pragma_table_info('audit_log') WHERE name = 'actor_device'").first {
                $0.int64(0)
            } == 1
        return hasDevices ? SQLiteOrderStore.auditColumns : SQLiteOrderStore.auditColumnsBeforeDevices
    }
}

extension Database {
    /// Whether this database (perhaps a backup of an older schema) has `table`.
    func hasTable(_ table: String) throws -> Bool {
        try statement("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?").first([table]) {
            $0.int64(0)
        } == 1
    }
}
