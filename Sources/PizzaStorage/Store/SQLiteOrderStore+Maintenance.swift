import Foundation
public import PizzaCore
import SQLite

/// Facts about the database file for `daemon.status`.
public struct DatabaseInfo: Sendable, Equatable {
    public var path: String
    public var bytes: Int64
    public var schemaVersion: Int
    public var journalMode: String
    public var synchronous: String
    public var sqliteVersion: String
}

extension SQLiteOrderStore {
    /// For each status an order can still leave, when its longest-waiting order last changed (for `open`, the last
    /// item change; for the others, when it entered the status): one seek each in the partial index
    /// `carts_active_by_status_age`, whatever the number of orders. Statuses with no order are left out.
    public func oldestChangeByActiveStatus() throws -> [OrderStatus: Timestamp] {
        try read { db in
            var oldest: [OrderStatus: Timestamp] = [:]
            for status in OrderStatus.allCases where status != .delivered && status != .cancelled {
                // The index's own WHERE terms are repeated so the planner may use the partial index.
                let sql = """
                    SELECT min(updated_at) FROM carts
                    WHERE status = ? AND status <> 'delivered' AND status <> 'cancelled'
                    """
                if let text = try db.statement(sql).first([status.rawValue], { $0.optionalString(0) }) ?? nil,
                    let at = Timestamp(iso8601: text)
                {
                    oldest[status] = at
                }
            }
            return oldest
        }
    }

    /// Path, size, schema version and the journal settings as SQLite reports them now.
    public func info() throws -> DatabaseInfo {
        try read { db in
            let pages = try db.scalar("PRAGMA page_count")
            let pageSize = try db.scalar("PRAGMA page_size")
            var bytes: Int64 = 0
            if case .integer(let count)? = pages, case .integer(let size)? = pageSize { bytes = count * size }
            let mode = try db.scalar("PRAGMA journal_mode")
            let sync = try db.scalar("PRAGMA synchronous")
            var journal = "unknown"
            if case .text(let text)? = mode { journal = text }
            var synchronous = "unknown"
            if case .integer(let level)? = sync {
                synchronous =
                    ConnectionSettings.Synchronous.allCases.first { $0.level == level }?.rawValue ?? "\(level)"
            }
            return DatabaseInfo(
                path: path, bytes: bytes, schemaVersion: schemaVersion, journalMode: journal,
                synchronous: synchronous, sqliteVersion: Database.libraryVersion)
        }
    }

    /// `integrity_check` and `foreign_key_check`: ok and the messages (just "ok" when healthy).
    public func check() throws -> (ok: Bool, messages: [String]) {
        try read { db in
            let integrity = try db.statement("PRAGMA integrity_check").map { $0.string(0) }
            let foreign = try db.statement("PRAGMA foreign_key_check").map { row in
                "foreign key: \(row.string(0)) row \(row.int64(1)) refers to missing \(row.string(2))"
            }
            let ok = integrity == ["ok"] && foreign.isEmpty
            return (ok, integrity + foreign)
        }
    }

    /// Writes a consistent copy of the database to `target` (online backup) so that, once this returns, the copy
    /// survives a power cut: it is written to `<target>.partial`, checked (`integrity_check`), fsynced, renamed to
    /// `target` (never over an existing file) and its folder fsynced. A cut before that leaves no file at `target`
    /// (at most a `.partial` one, replaced by the next backup to the same path). Nothing else is left beside the
    /// copy: it is checked through an `immutable` connection, which makes no `-wal` or `-shm` file. Returns the
    /// copy's size.
    ///
    /// Backups to the same path run one at a time: while one is being written, another to that path is refused
    /// (``StorageError/backupInProgress(path:)``) and touches nothing.
    public func backup(to target: String) async throws -> Int64 {
        let key = (target as NSString).standardizingPath
        guard backupsInFlight.withLock({ $0.insert(key).inserted }) else {
            throw StorageError.backupInProgress(path: target)
        }
        defer { _ = backupsInFlight.withLock { $0.remove(key) } }
        guard !FileManager.default.fileExists(atPath: target) else {
            throw StorageError.backupTargetExists(path: target)
        }
        let folder = DurableFiles.parent(of: target)
        var info = stat()
        guard stat(folder, &info) == 0 else {
            throw StorageError.backupFolderUnusable(
                folder: folder,
                reason: errno == ENOENT
                    ? "the folder \(folder) does not exist; pizzad makes no folders for a backup"
                    : String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw StorageError.backupFolderUnusable(
                folder: folder, reason: "\(String(cString: strerror(ENOTDIR))) (\(folder) is a file, not a folder)")
        }
        let partial = target + ".partial"
        // Left by a backup that was cut short (it was never acknowledged), or by one before this was fixed.
        for suffix in ["", "-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: partial + suffix) {
            try FileManager.default.removeItem(atPath: partial + suffix)
        }
        // Made here rather than by SQLite, so that a target pizzad cannot create is named with the system's reason
        // (SQLite only says "unable to open database file"). SQLite takes an empty file for a new database. Root
        // passes every permission check, so only creating the file finds out.
        let created = open(partial, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o640)
        guard created >= 0 else {
            let reason = String(cString: strerror(errno))
            guard [EACCES, EPERM, ENOENT, ENOTDIR, EROFS].contains(errno) else {
                throw StorageError.fileSystem(operation: "create", path: partial, reason: reason)
            }
            throw StorageError.backupFolderUnusable(folder: folder, reason: "cannot create \(partial): \(reason)")
        }
        Glibc.close(created)
        do {
            try await withWriter { db in try db.backup(to: partial) }
            // The backup's own connection is closed: everything is in the main file, which nothing writes now.
            let verdict = try Database(path: partial, mode: .immutable).statement("PRAGMA integrity_check").map {
                $0.string(0)
            }
            guard verdict == ["ok"] else {
                throw StorageError.backupDamaged(path: partial)
            }
            try DurableFiles.syncFile(partial)
            try DurableFiles.publish(partial, as: target)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
}
