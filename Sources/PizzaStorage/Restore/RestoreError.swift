/// Why `pizzad restore` restored nothing; in every case the database in place was left as it was.
public enum RestoreError: Error, CustomStringConvertible, Sendable {
    /// Another process has the database open (pizzad itself, or someone's `sqlite3`).
    case databaseInUse(path: String, pid: Int32, program: String)
    /// A database is in place and `--force` was not given.
    case databaseExists(path: String, detail: String)
    /// The backup file is not there or is not a file.
    case backupMissing(path: String)
    /// The backup file cannot be restored: not SQLite, another program's, truncated or damaged, a newer schema.
    case backupUnusable(path: String, reason: String)
    /// The history being restored is not one sound chain: a gap, an entry that does not link to the one before,
    /// or one whose fields do not give its hash.
    case brokenHistory(source: String, seq: Int64, problem: String)
    /// The centre does not know this shop id.
    case unknownShop(shop: String, peer: String)
    /// The centre registered this shop id to another PostgreSQL role: this role may not read its history.
    case otherShop(shop: String, detail: String)
    /// The source holds no entry at or before the point asked for.
    case nothingToRestore(source: String, point: String)
    /// The restored copy failed its own checks (integrity, audit chain) and was removed.
    case restoredCopyFailed(problem: String)

    public var description: String {
        switch self {
        case .databaseInUse(let path, let pid, let program):
            "\(path) is open in another process (\(program), pid \(pid)); stop it first (systemctl stop pizzad), "
                + "nothing was changed"
        case .databaseExists(let path, let detail):
            "a database is in place at \(path) (\(detail)); add --force to move it aside (it is kept, renamed with "
                + "the time) and restore over it, or --if-db-not-exists to leave it"
        case .backupMissing(let path): "no backup file at \(path)"
        case .backupUnusable(let path, let reason): "the backup \(path) cannot be restored: \(reason)"
        case .brokenHistory(let source, let seq, let problem):
            "the history from \(source) is broken at entry \(seq): \(problem); nothing was restored"
        case .unknownShop(let shop, let peer):
            "the centre at \(peer) has no shop \(shop) (check replication.shopId; a shop that never shipped "
                + "cannot be restored from the centre)"
        case .otherShop(let shop, let detail):
            "the centre will not give shop \(shop)'s history to this role: \(detail) (replication.postgres.user must "
                + "be the role the shop ships with)"
        case .nothingToRestore(let source, let point): "\(source) holds no entry \(point); nothing was restored"
        case .restoredCopyFailed(let problem): "the restored copy failed its checks (\(problem)) and was removed"
        }
    }

    /// The short name tests and scripts match on.
    public var name: String {
        switch self {
        case .databaseInUse: "database_in_use"
        case .databaseExists: "database_exists"
        case .backupMissing: "backup_missing"
        case .backupUnusable: "backup_unusable"
        case .brokenHistory: "broken_history"
        case .unknownShop: "unknown_shop"
        case .otherShop: "other_shop"
        case .nothingToRestore: "nothing_to_restore"
        case .restoredCopyFailed: "restored_copy_failed"
        }
    }
}
