internal import CSQLite

extension Database {
    // MARK: Transactions

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back when it throws.
    /// See <https://www.sqlite.org/lang_transaction.html>.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try within("BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a deferred transaction that only reads: every query in it sees one snapshot of the
    /// database (in WAL mode, the commit that was last when its first query ran), and the connection takes its
    /// read lock once instead of once per query.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try within("BEGIN", body)
    }

    /// `begin`, `body`, then `COMMIT`, or `ROLLBACK` when `body` throws. The transaction statements go through
    /// the statement cache.
    private func within<T>(_ begin: StaticString, _ body: () throws -> T) throws -> T {
        try execute(literal: begin, [])
        do {
            let result = try body()
            try execute(literal: "COMMIT", [])
            return result
        } catch {
            if isInTransaction { try? execute(literal: "ROLLBACK", []) }
            throw error
        }
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled back to when it throws, so one failing
    /// change leaves the surrounding transaction intact. See <https://www.sqlite.org/lang_savepoint.html>.
    ///
    /// When the failure made SQLite roll back the whole transaction (a full disk, an I/O error: see
    /// <https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction>), there is no
    /// savepoint left to roll back to and ``isInTransaction`` is false afterwards; the error is rethrown either way.
    /// The savepoint statements go through the statement cache.
    public func savepoint<T>(_ name: String = "change", _ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT \(name)", [])
        do {
            let result = try body()
            try execute("RELEASE \(name)", [])
            return result
        } catch {
            if isInTransaction {
                try? execute("ROLLBACK TO \(name)", [])
                try? execute("RELEASE \(name)", [])
            }
            throw error
        }
    }

    // MARK: Maintenance

    /// Checkpoints the WAL into the database file (`TRUNCATE` by default).
    /// See <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>.
    @discardableResult
    public func checkpoint(truncate: Bool = true) throws(SQLiteError) -> (log: Int, checkpointed: Int) {
        var log: Int32 = 0
        var done: Int32 = 0
        let mode = truncate ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE
        let code = sqlite3_wal_checkpoint_v2(handle, nil, mode, &log, &done)
        guard code == SQLITE_OK else { throw error(code: code) }
        return (Int(log), Int(done))
    }

    /// Copies the whole database to a new file at `path` with the online backup API, in steps so writers are
    /// not blocked for long. See <https://www.sqlite.org/backup.html>.
    public func backup(to path: String, pagesPerStep: Int32 = 256) throws(SQLiteError) {
        let target = try Database(path: path, mode: .readWriteCreate)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.error(code: sqlite3_errcode(target.handle))
        }
        var code: Int32
        repeat {
            code = sqlite3_backup_step(backup, pagesPerStep)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { sqlite3_sleep(5) }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw target.error(code: code) }
    }
}
