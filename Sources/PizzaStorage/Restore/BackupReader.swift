import Foundation
public import PizzaCore
import SQLite

/// A backup file (`db.backup`'s copy, or any pizzad database file) opened for a restore, checked before anything
/// is read from it: an SQLite file of pizzad's with a schema this pizzad knows, passing `integrity_check`, and its
/// audit chain whole. It is opened `immutable`, so nothing is written beside it (no `-wal`, no `-shm`).
public final class BackupReader {
    public let path: String
    private let db: Database
    /// The newest entry: its number, hash and time (0, the genesis hash, nil in an empty database).
    public let last: (seq: Int64, hash: String, at: String?)
    /// How many orders the backup holds.
    public let orders: Int64
    /// The replication state the backup was taken with.
    public let mark: ReplicationMark

    public init(path: String, migrations: [Migration]) throws(RestoreError) {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw .backupMissing(path: path) }
        func unusable(_ reason: String) -> RestoreError { .backupUnusable(path: path, reason: reason) }
        guard info.st_size > 0 else { throw unusable("the file is empty") }
        do {
            try Migrator.checkHeader(path: path)
            db = try Database(path: path, mode: .immutable)
            _ = try Migrator(migrations: migrations).pending(in: db)
            let integrity = try db.statement("PRAGMA integrity_check").map { $0.string(0) }
            guard integrity == ["ok"] else {
                throw unusable("it is damaged (integrity_check: \(integrity.prefix(3).joined(separator: "; ")))")
            }
            let audit = try db.verifyAuditChain()
            guard audit.ok else { throw unusable("its audit chain is broken: \(audit.problem ?? "?")") }
            last =
                try db.statement("SELECT seq, hash, at FROM audit_log ORDER BY seq DESC LIMIT 1").first {
                    ($0.int64(0), $0.string(1), Optional($0.string(2)))
                } ?? (0, AuditLogger.genesis, nil)
            orders = try db.statement("SELECT count(*) FROM carts").first { $0.int64(0) } ?? 0
            mark =
                try db.statement("SELECT shop_key, shipped_seq, shipped_hash FROM replication_state WHERE id = 1")
                .first { ReplicationMark(shopKey: $0.string(0), shippedSeq: $0.int64(1), shippedHash: $0.string(2)) }
                ?? ReplicationMark(shopKey: "", shippedSeq: 0, shippedHash: AuditLogger.genesis)
        } catch let error as RestoreError {
            throw error
        } catch let error as StorageError {
            switch error {
            case .notSQLite: throw unusable("it is not an SQLite database")
            case .notPizzad(_, let detail): throw unusable("it is another program's SQLite database (\(detail))")
            case .newerSchema(_, let found, let known):
                throw unusable(
                    "it has schema version \(found), written by a newer pizzad; this one knows up to \(known)")
            case .damaged(_, let message): throw unusable("it is damaged (\(message))")
            default: throw unusable("\(error)")
            }
        } catch let error as SQLiteError {
            throw unusable(
                error.code == .notadb
                    ? "it is not an SQLite database" : "it is damaged or truncated (\(error.message))")
        } catch {
            throw unusable("\(error)")
        }
    }

    /// The number of the last entry at or before `time` (0 when the first is later).
    public func lastSeq(atOrBefore time: Timestamp) throws -> Int64 {
        // The first entry after the time ends the history restored (the clock of a shop only goes forward).
        let after = try db.statement("SELECT min(seq) FROM audit_log WHERE at > ?").first([time.description]) {
            $0.optionalInt64(0)
        }
        guard let first = after ?? nil else { return last.seq }
        return first - 1
    }

    /// Entries after `after`, oldest first, at most `limit`.
    public func entries(after: Int64, limit: Int) throws -> [AuditEntry] {
        try db.statement(
            "SELECT \(try db.auditColumnList()) FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?"
        ).map([after, limit], SQLiteOrderStore.auditEntry)
    }

    /// The hash of entry `seq` (the genesis hash for 0).
    public func hash(seq: Int64) throws -> String? {
        seq == 0
            ? AuditLogger.genesis
            : try db.statement("SELECT hash FROM audit_log WHERE seq = ?").first([seq]) { $0.string(0) }
    }

    /// Copies the whole backup to `target` (a new file) with SQLite's online backup.
    public func copy(to target: String) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: target + suffix) {
            try FileManager.default.removeItem(atPath: target + suffix)
        }
        try db.backup(to: target)
    }
}
