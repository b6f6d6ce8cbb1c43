import Foundation
public import PizzaCore
import PizzaWire
import SQLite

/// One entry of a history being restored: the audit entry as stored (its texts and hash) and the orders it holds.
public struct RebuildEntry: Sendable {
    /// The audit entry as stored.
    public var entry: AuditEntry
    /// The order before the change; nil for a creation.
    public var before: Cart?
    /// The order after the change; nil for an entry that belongs to no order (its text is the record).
    public var after: Cart?

    /// The entry with the orders read from its texts.
    public init(entry: AuditEntry, before: Cart?, after: Cart?) {
        self.entry = entry
        self.before = before
        self.after = after
    }

    /// The entry with its orders read from its own texts (an audit log's row).
    public init(_ entry: AuditEntry) throws {
        func cart(_ text: String) throws -> Cart {
            guard let value = try? JSONParser.parse(text) else {
                throw WireFormError(description: "entry \(entry.seq) holds an order that is not JSON")
            }
            return try Cart(wire: value)
        }
        if entry.orderID == nil {
            self.init(entry: entry, before: nil, after: nil)
        } else {
            self.init(entry: entry, before: try entry.before.map(cart), after: try cart(entry.after))
        }
    }
}

/// Builds a new pizzad database from a history of audit entries, entry by entry as the daemon wrote it: each
/// entry's rows (`carts`, `pizzas`, `status_history`) by the same ``PersistenceLayer`` and its audit row as it
/// was, so the copy answers `order.get` as the original did at that point and the next change chains on.
///
/// Every entry is checked on the way in: the next number, linked to the one before, its fields giving its hash,
/// its order matching its action. The first that is not ends the rebuild with ``RestoreError/brokenHistory``.
public final class AuditRebuild {
    public let path: String
    /// Where the history comes from, for messages ("the backup …", "the centre at …").
    public let source: String
    private var db: Database?
    private let numbers = TransactionNumbers()
    private let persistence = PersistenceLayer()
    public private(set) var lastSeq: Int64 = 0
    public private(set) var lastHash = AuditLogger.genesis
    public private(set) var lastAt: String?
    /// How many orders the entries created.
    public private(set) var orders = 0

    /// A new database at `path` (anything there, with its `-wal` and `-shm`, is removed first: it is a staging
    /// file of a restore that did not finish) with every migration applied.
    public init(path: String, migrations: [Migration], source: String) throws {
        self.path = path
        self.source = source
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
        let db = try Database(path: path, mode: .readWriteCreate)
        // Nothing is acknowledged until the whole copy is checked, fsynced and renamed into place.
        try db.configure(ConnectionSettings(synchronous: .off))
        try Migrator(migrations: migrations).apply(migrations, to: db, at: Timestamp.now().description)
        self.db = db
    }

    /// Appends `entries` (the next ones, in order) in one transaction.
    public func append(_ entries: [RebuildEntry]) throws {
        guard let db else { preconditionFailure("append after finish") }
        try db.transaction {
            for item in entries { try apply(item, db) }
        }
    }

    private func apply(_ item: RebuildEntry, _ db: Database) throws {
        let entry = item.entry
        func broken(_ problem: String) -> RestoreError {
            .brokenHistory(source: source, seq: entry.seq, problem: problem)
        }
        guard entry.seq == lastSeq + 1 else {
            throw broken(
                entry.seq > lastSeq + 1
                    ? "entries \(lastSeq + 1)…\(entry.seq - 1) are missing" : "it comes twice or out of order")
        }
        guard entry.prevHash == lastHash else { throw broken("it does not link to entry \(lastSeq)") }
        guard entry.computedHash == entry.hash else {
            throw broken("its fields do not give its hash \(entry.hash.prefix(12))…")
        }
        if entry.orderID == nil {
            do {
                try db.restoreShopEntry(entry)
                try db.insertAuditEntry(entry, hash: entry.hash)
            } catch let error as SQLiteError where error.code == .constraint {
                throw broken("its rows do not fit the entries before it (\(error.message))")
            } catch let error as ShopEntryError {
                throw broken(error.description)
            }
            lastSeq = entry.seq
            lastHash = entry.hash
            lastAt = entry.at
            return
        }
        guard let kind = OrderChange.Kind(rawValue: entry.action), let after = item.after,
            after.id == entry.orderID, after.status.rawValue == entry.statusAfter,
            (item.before == nil) == (kind == .created),
            let at = Timestamp(iso8601: entry.at)
        else { throw broken("its order does not match its action, order id, status or time") }
        let change = OrderChange(
            sequence: entry.seq, kind: kind, at: at, actor: entry.actor, before: item.before, after: after,
            reason: entry.reason)
        do {
            try persistence.repository(willCommit: change, in: WriteTransaction(db: db, numbers: numbers))
            try db.insertAuditEntry(entry, hash: entry.hash)
        } catch let error as SQLiteError where error.code == .constraint {
            throw broken("its rows do not fit the orders before it (\(error.message))")
        }
        if kind == .created { orders += 1 }
        lastSeq = entry.seq
        lastHash = entry.hash
        lastAt = entry.at
    }

    /// Records whose database this is and how far the centre has it (`replication_state`), writes everything
    /// into the main file, and closes it. `shopKey` nil keeps the new random key.
    public func finish(shopKey: String?, shipped: (seq: Int64, hash: String)?) throws {
        guard let db else { return }
        try db.transaction {
            if let shopKey { try db.execute("UPDATE replication_state SET shop_key = ? WHERE id = 1", [shopKey]) }
            if let shipped {
                try db.execute(
                    "UPDATE replication_state SET shipped_seq = ?, shipped_hash = ?, shipped_at = NULL WHERE id = 1",
                    [shipped.seq, shipped.hash])
            }
        }
        _ = try db.checkpoint(truncate: true)
        self.db = nil
    }
}
