import Foundation
import PizzaCore
import SQLite

/// A restored database before it is put in place: brought to this pizzad's schema and checked as a whole.
public enum RestoredCopy {
    /// What the copy holds.
    public struct Summary: Sendable {
        public var entries: Int64
        public var orders: Int64
        public var lastSeq: Int64
        public var lastAt: String?
        public var shippedSeq: Int64
    }

    /// Opens the copy at `path` with pizzad's settings (WAL, `synchronous=FULL`), applies the migrations it lacks
    /// (a backup from an older pizzad), checks it (`integrity_check`, `foreign_key_check`, the audit chain and
    /// every order against its last entry), writes the WAL into the main file, fsyncs it and closes it. Throws
    /// ``RestoreError/restoredCopyFailed(problem:)`` when a check fails.
    public static func prepare(path: String, migrations: [Migration]) throws -> Summary {
        let summary: Summary
        do {
            let db = try Database(path: path, mode: .readWrite)
            try db.configure(ConnectionSettings())
            let migrator = Migrator(migrations: migrations)
            try migrator.apply(try migrator.pending(in: db), to: db, at: Timestamp.now().description)
            let integrity = try db.statement("PRAGMA integrity_check").map { $0.string(0) }
            guard integrity == ["ok"] else {
                throw RestoreError.restoredCopyFailed(
                    problem: "integrity_check: " + integrity.prefix(3).joined(separator: "; "))
            }
            let foreign = try db.statement("PRAGMA foreign_key_check").first { row -> String in
                "\(row.string(0)) row \(row.int64(1))"
            }
            if let row = foreign {
                throw RestoreError.restoredCopyFailed(problem: "foreign_key_check: \(row)")
            }
            let audit = try db.verifyAuditChain()
            guard audit.ok else { throw RestoreError.restoredCopyFailed(problem: audit.problem ?? "audit chain") }
            let last = try db.statement("SELECT seq, at FROM audit_log ORDER BY seq DESC LIMIT 1").first {
                ($0.int64(0), $0.string(1))
            }
            summary = Summary(
                entries: Int64(audit.entries),
                orders: try db.statement("SELECT count(*) FROM carts").first { $0.int64(0) } ?? 0,
                lastSeq: last?.0 ?? 0, lastAt: last?.1,
                shippedSeq: try db.statement("SELECT shipped_seq FROM replication_state").first { $0.int64(0) } ?? 0)
            _ = try db.checkpoint(truncate: true)
        }
        // The connection is closed: SQLite removed the (empty) -wal and -shm with it.
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
        try DurableFiles.syncFile(path)
        return summary
    }
}
