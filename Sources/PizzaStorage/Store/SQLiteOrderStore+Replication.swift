public import PizzaCore
import SQLite

extension SQLiteOrderStore {
    /// The shop key and the shipped mark.
    public func replicationMark() throws -> ReplicationMark {
        let mark = try read { db in
            try db.statement("SELECT shop_key, shipped_seq, shipped_hash FROM replication_state WHERE id = 1").first {
                row in
                ReplicationMark(shopKey: row.string(0), shippedSeq: row.int64(1), shippedHash: row.string(2))
            }
        }
        guard let mark else {
            throw StorageError.badMigration(file: "0004_replication_state.sql", reason: "replication_state has no row")
        }
        return mark
    }

    /// The newest sequence number and when the entry after `shipped` was written.
    public func replicationBacklog(after shipped: Int64) throws -> ReplicationBacklog {
        try read { db in
            let latest = try db.statement("SELECT coalesce(max(seq), 0) FROM audit_log").first { $0.int64(0) } ?? 0
            let oldest = try db.statement("SELECT at FROM audit_log WHERE seq = ?").first([shipped + 1]) {
                $0.string(0)
            }
            return ReplicationBacklog(latestSeq: latest, oldestUnshippedAt: oldest.flatMap(Timestamp.init(iso8601:)))
        }
    }

    /// The hash of audit entry `seq`, or nil when there is none.
    public func auditHash(seq: Int64) throws -> String? {
        try read { db in try db.statement("SELECT hash FROM audit_log WHERE seq = ?").first([seq]) { $0.string(0) } }
    }

    /// Records that the centre committed everything up to `seq` (whose hash is `hash`). Goes into the next group
    /// commit beside the orders, so shipping costs the kitchen no fsync of its own.
    public func recordShipped(seq: Int64, hash: String, at time: Timestamp = .now()) async throws {
        try await enqueue { db in
            try db.execute(
                "UPDATE replication_state SET shipped_seq = ?, shipped_hash = ?, shipped_at = ? WHERE id = 1",
                [seq, hash, time.description])
        }
    }
}
