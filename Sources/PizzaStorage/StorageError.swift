public import PizzaCore
public import SQLite

/// Why the database cannot be used, each with what to do about it.
public enum StorageError: Error, CustomStringConvertible, Sendable {
    /// The file is not an SQLite database at all.
    case notSQLite(path: String)
    /// The file is an SQLite database of another program.
    case notPizzad(path: String, detail: String)
    /// The file is damaged.
    case damaged(path: String, message: String)
    /// The database was written by a newer pizzad.
    case newerSchema(path: String, found: Int, known: Int)
    /// A migration that was applied has a different file now.
    case changedMigration(version: Int, name: String, recorded: String, actual: String)
    /// A migration applied to the database is not among the files.
    case missingMigration(version: Int, name: String)
    /// No migrations folder was found.
    case migrationsNotFound(searched: [String])
    /// A migration file is named or written wrong.
    case badMigration(file: String, reason: String)
    /// A migration failed to apply; it was rolled back.
    case migrationFailed(version: Int, name: String, underlying: SQLiteError)
    /// The disk is full, read-only or failing; nothing of the change was written.
    case unavailable(SQLiteError)
    /// The database file was removed or replaced while pizzad had it open; nothing more is written to it.
    case vanished(path: String)
    /// The database file (or its folder) cannot be written: reads are served, changes refused until it can.
    case readOnly(path: String)
    /// The database is read-only and still needs migrations, so this pizzad cannot use it.
    case readOnlyNeedsMigration(path: String, pending: Int)
    /// The database is read-only and its write-ahead log holds changes, but the log's index (`-shm`) is missing:
    /// SQLite can neither read the log without it nor make it in a read-only folder.
    case readOnlyWALWithoutIndex(path: String, walBytes: Int64)
    /// A file-system step (create, fsync, rename) failed; `reason` is the system's (`strerror`).
    case fileSystem(operation: String, path: String, reason: String)
    /// A backup's target already exists; pizzad never overwrites a file.
    case backupTargetExists(path: String)
    /// Another backup to the same path is being written now; this one wrote nothing.
    case backupInProgress(path: String)
    /// The copy a backup wrote does not pass `integrity_check`; it was removed.
    case backupDamaged(path: String)
    /// A backup cannot be written into `folder` (missing, not a folder, not writable); nothing was written.
    case backupFolderUnusable(folder: String, reason: String)

    public var description: String {
        switch self {
        case .notSQLite(let path):
            "\(path) is not an SQLite database; point --database at a pizzad database or at a new path"
        case .notPizzad(let path, let detail):
            "\(path) is an SQLite database of another program (\(detail)); pizzad will not touch it: "
                + "point --database at a pizzad database or at a new path"
        case .damaged(let path, let message):
            "\(path) is damaged (\(message)); restore it from a backup (see OPERATIONS.md, \"Backups and restore\"), "
                + "or inspect it with: sqlite3 \(path) 'PRAGMA integrity_check'"
        case .newerSchema(let path, let found, let known):
            "\(path) has schema version \(found), written by a newer pizzad; this pizzad knows up to \(known): "
                + "upgrade pizzad (the file was not changed)"
        case .changedMigration(let version, let name, let recorded, let actual):
            "migration \(version) (\(name)) changed after it was applied (recorded sha256 \(recorded.prefix(12))…, "
                + "file \(actual.prefix(12))…): restore the original file and put changes in a new migration"
        case .missingMigration(let version, let name):
            "migration \(version) (\(name)) is applied to the database but missing from the migrations folder: "
                + "install the matching pizzad"
        case .migrationsNotFound(let searched):
            "no migrations folder found (looked in: \(searched.joined(separator: ", "))); "
                + "set database.migrations in the configuration or PIZZAD_MIGRATIONS"
        case .badMigration(let file, let reason): "bad migration file \(file): \(reason)"
        case .migrationFailed(let version, let name, let underlying):
            "migration \(version) (\(name)) failed and was rolled back: \(underlying)"
        case .unavailable(let error): "storage unavailable: \(error.message) (\(error.code.name))"
        case .vanished(let path):
            "the database file \(path) was removed or replaced while pizzad had it open; changes are refused so "
                + "none is lost: restore the file (or a backup) and restart pizzad"
        case .readOnly(let path):
            "the database \(path) is read-only (its file, folder or file system); reads are served, changes are "
                + "refused until it is writable again, which pizzad notices by itself"
        case .readOnlyNeedsMigration(let path, let pending):
            "the database \(path) is read-only and needs \(pending) migration(s) this pizzad would apply: "
                + "make it writable (the file was not changed)"
        case .readOnlyWALWithoutIndex(let path, let walBytes):
            "the database \(path) is read-only, and its write-ahead log \(path)-wal (\(walBytes) bytes) holds "
                + "changes that SQLite cannot read without \(path)-shm, which is missing: make the folder writable "
                + "once (pizzad folds the log into the database), or copy the database and its -wal to a writable "
                + "folder; the files were not changed"
        case .fileSystem(let operation, let path, let reason): "cannot \(operation) \(path): \(reason)"
        case .backupTargetExists(let path): "\(path) exists; choose a new path (pizzad never overwrites a file)"
        case .backupInProgress(let path):
            "a backup to \(path) is being written now; wait for it to finish or choose another path"
        case .backupDamaged(let path): "the copy at \(path) fails integrity_check and was removed; nothing was kept"
        case .backupFolderUnusable(let folder, let reason): "cannot write a backup into \(folder): \(reason)"
        }
    }
}

extension StorageError: DomainFailure {
    /// A storage error is `storage` (1006, 503): the disk or the file refused, nothing was written. A backup's
    /// target is the caller's choice; `db.backup` answers those as `validation` naming its `path`.
    public var kind: FailureKind { .storage }
    /// None: the sentence says what to do.
    public var details: FailureDetails { .none }
}

extension SQLiteError: DomainFailure {
    /// A full disk, an I/O error or a lock is `storage`; a value the schema's CHECKs refuse is the caller's
    /// (`validation`: nothing was written); anything else is pizzad's own fault.
    public var kind: FailureKind {
        if isStorageFailure { return .storage }
        if code == .constraint { return .validation }
        return .internal
    }

    /// None.
    public var details: FailureDetails { .none }

    /// For a storage failure, what it means for the database; for a refused value, what the schema refused.
    public var explanation: String {
        switch kind {
        case .storage: "\(StorageError.unavailable(self))"
        case .validation: "the database refused the change: \(self.message)"
        default: "\(self)"
        }
    }
}
