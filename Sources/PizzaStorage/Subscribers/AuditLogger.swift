import Crypto
import Foundation
public import PizzaCore
import PizzaProtocol
import SQLite

/// Appends a hash-chained entry for every change to `audit_log`, inside the change's transaction.
///
/// Each entry records who (uid, name, pid), what (action, order, reason), and the order before and after in
/// its wire form (the JSON `order.get` answers). Its `hash` is SHA-256 over those fields and the previous entry's hash, so an edit, insertion or deletion
/// anywhere breaks the chain from there on; `SQLiteOrderStore.verifyAudit()` finds the first bad entry. It
/// writes through the transaction the repository hands it; ``OrderBook`` owns it.
public final class AuditLogger: OrderRepositoryDelegate {
    /// The hash before the first entry.
    public static let genesis = String(repeating: "0", count: 64)

    public init() {}

    public func repository(willCommit change: OrderChange, in transaction: any OrderTransaction) throws {
        let db = WriteTransaction(transaction).db
        let previous = try db.statement("SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1").first { $0.string(0) }
        let entry = AuditEntry(
            seq: change.sequence, at: change.at.description, actor: change.actor, action: change.kind.rawValue,
            orderID: change.after.id, statusAfter: change.after.status.rawValue, reason: change.reason,
            before: change.before.map { $0.wire.jsonText },
            after: change.afterWireText,
            prevHash: previous ?? Self.genesis, hash: "")
        try db.execute(
            """
            INSERT INTO audit_log (seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason,
                                   before, after, prev_hash, hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                entry.seq, entry.at, Int64(entry.actor.uid), entry.actor.name, entry.actor.pid, entry.action,
                entry.orderID, entry.statusAfter, entry.reason, entry.before, entry.after, entry.prevHash,
                entry.computedHash,
            ])
    }
}

/// One row of `audit_log`.
public struct AuditEntry: Sendable, Equatable, Codable {
    public var seq: Int64
    public var at: String
    public var actor: ChangeActor
    public var action: String
    public var orderID: Int64
    public var statusAfter: String
    public var reason: String?
    /// The order before the change, as JSON; nil for a creation.
    public var before: String?
    /// The order after the change, as JSON.
    public var after: String
    public var prevHash: String
    public var hash: String

    /// SHA-256 over every field but `hash`, in a fixed order with unit separators, hex.
    public var computedHash: String {
        let fields: [String] = [
            String(seq), at, String(actor.uid), actor.name, String(actor.pid), action, String(orderID), statusAfter,
            reason ?? "\u{0}", before ?? "\u{0}", after, prevHash,
        ]
        let digest = SHA256.hash(data: Data(fields.joined(separator: "\u{1F}").utf8))
        return Hex.string(digest)
    }
}

/// The result of checking the audit chain.
public struct AuditVerification: Sendable, Equatable {
    /// Whether every entry and every order is consistent.
    public var ok: Bool
    /// How many entries were checked.
    public var entries: Int
    /// The first entry that does not verify, if any.
    public var firstBad: Int64?
    /// What is wrong, for people.
    public var problem: String?
}

extension SQLiteOrderStore {
    static let auditColumns =
        "seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, prev_hash, hash"

    static func auditEntry(_ row: Row) -> AuditEntry {
        AuditEntry(
            seq: row.int64(0), at: row.string(1),
            actor: ChangeActor(
                uid: UInt32(truncatingIfNeeded: row.int64(2)), name: row.string(3),
                pid: Int32(truncatingIfNeeded: row.int64(4))),
            action: row.string(5), orderID: row.int64(6), statusAfter: row.string(7), reason: row.optionalString(8),
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

    /// Walks the whole chain, then checks that every order's status is the one its last audit entry recorded
    /// (so an edit to `carts` made behind pizzad's back shows too).
    public func verifyAudit() throws -> AuditVerification {
        try read { db in
            var previous = AuditLogger.genesis
            var expectedSeq: Int64 = 1
            var count = 0
            var bad: (Int64, String)?
            try db.statement("SELECT \(Self.auditColumns) FROM audit_log ORDER BY seq").forEach { row in
                guard bad == nil else { return }
                let entry = Self.auditEntry(row)
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
            return AuditVerification(ok: true, entries: count, firstBad: nil, problem: nil)
        }
    }
}
