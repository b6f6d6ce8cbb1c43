public import PizzaCore
import PizzaWire
import SQLite

/// Appends a hash-chained entry for every change to `audit_log`, inside the change's transaction.
///
/// Each entry records who (uid, name, pid), what (action, order, reason), and the order before and after in
/// its wire form (the JSON `order.get` answers). Its `hash` is SHA-256 over those fields and the previous entry's hash, so an edit, insertion or deletion
/// anywhere breaks the chain from there on; `SQLiteOrderStore.verifyAudit()` finds the first bad entry. It
/// writes through the transaction the repository hands it; ``OrderBook`` owns it.
public final class AuditLogger: OrderChangeWriter {
    /// The hash before the first entry.
    public static let genesis = String(repeating: "0", count: 64)

    public init() {}

    public func repository(willCommit change: OrderChange, in transaction: WriteTransaction) throws {
        let db = transaction.db
        let previous = try transaction.auditChainHead()
        let entry = AuditEntry(
            seq: change.sequence, at: change.atText, actor: change.actor, action: change.kind.rawValue,
            orderID: change.after.id, statusAfter: change.after.status.rawValue, reason: change.reason,
            before: change.beforeText ?? change.before?.wireText,
            after: change.afterWireText,
            prevHash: previous, hash: "")
        let hash = entry.computedHash
        try db.insertAuditEntry(entry, hash: hash)
        transaction.appended(auditEntryHash: hash)
    }

    /// An entry that belongs to no order: no order id, no status; `after` is what it records.
    public func repository(willCommit change: ShopChange, in transaction: WriteTransaction) throws {
        let previous = try transaction.auditChainHead()
        let entry = AuditEntry(
            seq: change.sequence, at: change.atText, actor: change.actor, action: change.kind.rawValue, orderID: nil,
            statusAfter: nil, reason: change.reason, before: change.beforeText, after: change.text, prevHash: previous,
            hash: "")
        let hash = entry.computedHash
        try transaction.db.insertAuditEntry(entry, hash: hash)
        transaction.appended(auditEntryHash: hash)
    }
}

extension Database {
    /// Appends `entry` to `audit_log` with `hash` (the daemon's computed one, or a restored entry's own).
    func insertAuditEntry(_ entry: AuditEntry, hash: String) throws {
        // An entry made over the control socket names no device: its row is written as before schema 5.
        let byDevice = entry.actor.device != nil || entry.actor.address != nil
        let sql: StaticString =
            byDevice
            ? """
            INSERT INTO audit_log (seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason,
                                   before, after, prev_hash, hash, actor_device, actor_address)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
            : """
            INSERT INTO audit_log (seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason,
                                   before, after, prev_hash, hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        try execute(literal: sql) { row in
            row.bind(entry.seq)
            row.bind(entry.at)
            row.bind(entry.actor.uid)
            row.bind(entry.actor.name)
            row.bind(entry.actor.pid)
            row.bind(entry.action)
            row.bind(entry.orderID)
            row.bind(entry.statusAfter)
            row.bind(entry.reason)
            row.bind(entry.before)
            row.bind(entry.after)
            row.bind(entry.prevHash)
            row.bind(hash)
            if byDevice {
                row.bind(entry.actor.device)
                row.bind(entry.actor.address)
            }
        }
    }
}
