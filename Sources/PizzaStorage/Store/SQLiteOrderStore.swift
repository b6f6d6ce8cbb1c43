import Dispatch
import Foundation
public import PizzaCore
public import SQLite

/// The SQLite ``OrderStore``: one writer with group commit, a pool of readers.
///
/// Writes queue up while a commit is in flight and go together into the next transaction; one failing change
/// fails alone (see `commit(_:)`). Every caller is resumed only after `COMMIT` returned, with
/// `synchronous=FULL`, so nothing is acknowledged before it is durable.
public final class SQLiteOrderStore: OrderStore {
    /// Where the database file is.
    public let path: String
    /// The schema version after start-up.
    public let schemaVersion: Int
    /// The connection settings in force.
    public let settings: ConnectionSettings
    /// Who copies the WAL back into the database file.
    public let checkpoints: CheckpointPolicy

    /// Who checkpoints the WAL (`database.checkpoints`).
    public enum CheckpointPolicy: String, Sendable, CaseIterable {
        /// pizzad's own checkpointer, beside the writer (see ``Checkpointer``).
        case pizzad
        /// Another program (Litestream) checkpoints; pizzad never does while it runs, only when it stops. SQLite's
        /// automatic checkpoint is off too: the WAL grows until that program copies it back.
        case external
    }

    /// The write connection; only ever used on `queue` (inside a write body or a maintenance block).
    var writer: Database { connection }
    /// `nonisolated(unsafe)` is sound because it is read and replaced only on the serial `queue` (a write body,
    /// a maintenance block, or ``reopenIfWritable()``), never anywhere else after `init`.
    private nonisolated(unsafe) var connection: Database
    /// Whether the file could not be written when it was opened (and not since): changes are refused at once.
    private let readOnly: Locked<Bool>
    private let queue = DispatchQueue(label: "pizzad.writer", qos: .userInitiated)
    private let pending = Locked<PendingWrites>(PendingWrites())
    /// The numbers the last group commit left off at (see ``TransactionNumbers``), carried into the next one so that
    /// it asks no table for them, with the writer's `PRAGMA data_version` then: when another connection has
    /// committed since (someone's `sqlite3`), the next one reads them afresh. Nil after anything else that may
    /// have written those tables (a failure, a rollback, a maintenance block). Only ever used on the serial
    /// `queue`, hence `nonisolated(unsafe)`.
    private nonisolated(unsafe) var carriedNumbers: (numbers: TransactionNumbers, dataVersion: Int64)?
    private let readers: ReadPool
    private let checkpointer: Checkpointer
    private let storageFailure = Locked<StorageError?>(nil)
    /// The targets of the backups being written now (standardized paths): a second backup to one of them would
    /// remove the first one's `.partial` file as a leftover and both would fail, or worse.
    let backupsInFlight = Locked<Set<String>>([])
    private let groupCommitObserver = Locked<(@Sendable (_ changes: Int, _ duration: Duration) -> Void)?>(nil)
    /// The database file's device and inode when it was opened: a write to a file that was since removed or
    /// replaced would be acknowledged and then lost, so writes stop when the path no longer names it.
    private let fileIdentity: (device: UInt64, inode: UInt64)?

    private struct PendingWrites {
        var writes: [PendingWrite] = []
        var draining = false
    }

    /// Opens (creating when missing) the database at `path`, refuses a file that is not a pizzad database of a
    /// compatible version without touching it, applies pending `migrations`, and configures every connection.
    /// `willMigrate` hears which migrations are about to run on an existing database (one may rebuild tables and
    /// take as long as copying the file), before the first starts.
    public init(
        path: String, migrations: [Migration], settings: ConnectionSettings = ConnectionSettings(),
        checkpoints: CheckpointPolicy = .pizzad, readers: Int = 4,
        willMigrate: (_ pending: [Migration], _ bytes: Int64) -> Void = { _, _ in }
    ) throws {
        try Migrator.checkHeader(path: path)
        let readOnlyMode = Self.readOnlyMode(of: path)
        let writer = try Database(path: path, mode: readOnlyMode ?? .readWriteCreate)
        let migrator = Migrator(migrations: migrations)
        let todo = try migrator.pending(in: writer)
        if readOnlyMode != nil, !todo.isEmpty {
            throw StorageError.readOnlyNeedsMigration(path: path, pending: todo.count)
        }
        var writerSettings = settings
        writerSettings.fileIsReadOnly = readOnlyMode != nil
        writerSettings.queryOnly = readOnlyMode != nil
        do {
            try writer.configure(writerSettings)
        } catch let error as SQLiteError {
            throw StorageError.unavailable(error)
        }
        if !todo.isEmpty, todo.count < migrations.count {
            var info = stat()
            willMigrate(todo, stat(path, &info) == 0 ? Int64(info.st_size) : 0)
        }
        try migrator.apply(todo, to: writer, at: Timestamp.now().description)
        self.fileIdentity = Self.identity(of: path)
        self.path = path
        self.connection = writer
        self.readOnly = Locked(readOnlyMode != nil)
        self.settings = settings
        self.checkpoints = checkpoints
        self.walIndex = WALIndex(path: path + "-shm")
        self.schemaVersion = migrations.last?.version ?? 0
        self.readers = ReadPool(keep: readers, open: Self.reader(path: path, settings: settings, mode: readOnlyMode))
        self.checkpointer = Checkpointer(open: Self.checkpointConnection(path: path, settings: settings))
        if readOnlyMode == nil {
            writer.onWALCommit(Self.walHook(checkpoints, checkpointer))
        }
    }

    /// What the writer does after each commit: tell the checkpointer the WAL's length, or (left to another program)
    /// nothing, which also keeps SQLite's automatic checkpoint off.
    private static func walHook(_ policy: CheckpointPolicy, _ checkpointer: Checkpointer)
        -> @Sendable (_ frames: Int) -> Bool
    {
        switch policy {
        case .pizzad: { frames in checkpointer.walCommitted(frames: frames) }
        case .external: { _ in false }
        }
    }

    /// With checkpoints left to another program, the writer keeps the WAL from outgrowing
    /// ``externalWALLimitFrames``: past it, it waits before its next transaction (holding no lock) until that
    /// program has copied the whole WAL back, so that this transaction starts the WAL over. A checkpointer that
    /// works inside a write transaction of its own (Litestream 0.5 seals the WAL so) gets the write lock at once,
    /// where under steady load it would find one group commit after another and the WAL would grow by a quarter of
    /// a gigabyte a second. When nothing copies it back within ``externalCheckpointPatience``, the writer checkpoints
    /// itself (the other program is not running: the WAL stays bounded) and goes on (it is busy: the writer waits
    /// again only once the WAL has grown by the limit once more), so the kitchen is never stopped for long.
    static let externalWALLimitFrames = 12_288
    static let externalCheckpointPatience: Duration = .seconds(2)
    private let walIndex: WALIndex

    /// Only on `queue`, before a group commit.
    private func waitForExternalCheckpoint() {
        guard checkpoints == .external, let now = walIndex.read() else { return }
        if now.frames < Self.externalWALLimitFrames { nextExternalWait = 0 }
        guard now.frames >= max(Self.externalWALLimitFrames, nextExternalWait), now.backfilled < now.frames else {
            return
        }
        let deadline = ContinuousClock.now + Self.externalCheckpointPatience
        while ContinuousClock.now < deadline {
            usleep(1_000)
            guard let index = walIndex.read(), index.frames >= Self.externalWALLimitFrames,
                index.backfilled < index.frames
            else { return }
        }
        // Nothing copied the WAL back in time. With nobody reading it, pizzad's own checkpoint copies all of it
        // and this commit starts it over. A reader that still holds it (the other program, busy) gets no second
        // wait until the WAL has grown by the limit again: the kitchen waits at most once per 48 MiB.
        _ = try? writer.checkpoint(truncate: false)
        if let index = walIndex.read(), index.backfilled < index.frames {
            nextExternalWait = index.frames + Self.externalWALLimitFrames
        }
    }
    /// The WAL's length at which the writer waits again after a wait nobody answered. Only on `queue`.
    private nonisolated(unsafe) var nextExternalWait = 0

    /// How to open the checkpointer's connection: read-write like the writer, but it never writes a row.
    private static func checkpointConnection(path: String, settings: ConnectionSettings)
        -> @Sendable () throws -> Database
    {
        { [settings] in
            let db = try Database(path: path, mode: .readWrite)
            try db.configure(settings)
            return db
        }
    }

    /// How to open a read connection: like the writer's file, never writing.
    private static func reader(
        path: String, settings: ConnectionSettings, mode: Database.OpenMode?
    ) -> @Sendable () throws -> Database {
        var readerSettings = settings
        readerSettings.queryOnly = true
        readerSettings.fileIsReadOnly = mode != nil
        return { [readerSettings] in
            let db = try Database(path: path, mode: mode ?? .readWrite)
            try db.configure(readerSettings)
            return db
        }
    }

    /// How to open an existing file that pizzad may not write, or nil when it may (or the file is new).
    ///
    /// A WAL database opens read-only only when its `-wal` and `-shm` files exist (or can be made); with no
    /// `-wal` file there is nothing beyond the main file to read, so `immutable=1` opens it without a `-shm`.
    /// See <https://www.sqlite.org/wal.html#readonly>.
    static func readOnlyMode(of path: String) -> Database.OpenMode? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let folder = (path as NSString).deletingLastPathComponent
        if access(path, W_OK) == 0, access(folder.isEmpty ? "." : folder, W_OK) == 0 { return nil }
        return FileManager.default.fileExists(atPath: path + "-wal") ? .readOnly : .immutable
    }

    /// Whether changes are refused because the file cannot be written.
    public var isReadOnly: Bool { readOnly.value }

    /// If the database was opened read-only (or a write found it so) and its file can be written now, reopens it
    /// for writing and returns true: changes are accepted again. Runs between group commits.
    ///
    /// The new writer is only put in place once it has begun a write transaction: SQLite shares one wal-index
    /// (`-shm`) mapping among a process's connections to a file, and a read-only connection still reading when
    /// the new one maps it leaves the new one read-only too ("attempt to write a readonly database"). Then this
    /// returns false, the read-only connections are being replaced, and the next try succeeds.
    public func reopenIfWritable() async throws -> Bool {
        guard isReadOnly, Self.readOnlyMode(of: path) == nil else { return false }
        let path = path
        let settings = settings
        // The read-only connections go first, so that as few as possible still hold the old mapping.
        readers.reopen(with: Self.reader(path: path, settings: settings, mode: nil))
        let checkpointer = checkpointer
        checkpointer.reopen(with: Self.checkpointConnection(path: path, settings: settings))
        // On the writer's queue, between group commits, without holding the old writer (as `withWriter` would).
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(
                    with: Result {
                        // Opening reads nothing yet; the old (read-only) writer is closed before the new one first reads.
                        let writable = try Database(path: path, mode: .readWrite)
                        self.connection = writable
                        self.carriedNumbers = nil
                        do {
                            try writable.configure(settings)
                            try writable.transaction {}
                        } catch let error as SQLiteError where error.code == .readonly {
                            // Still flagged read-only: changes are refused, and the next round tries again.
                            return false
                        }
                        writable.onWALCommit(Self.walHook(self.checkpoints, checkpointer))
                        self.readOnly.withLock { $0 = false }
                        self.clearStorageFailure()
                        return true
                    })
            }
        }
    }

    /// Sets what hears of every group commit that wrote something: how many changes, and how long it took from
    /// `BEGIN` to the durable `COMMIT`. Called on the writer's queue after the commit, before callers resume: keep
    /// it to a few atomic updates.
    public func observeGroupCommits(_ observer: @escaping @Sendable (_ changes: Int, _ duration: Duration) -> Void) {
        groupCommitObserver.withLock { $0 = observer }
    }

    // MARK: Writing

    public func write<T: Sendable>(
        _ body: @escaping @Sendable (any OrderTransaction) throws -> T,
        afterCommit: @escaping @Sendable (T) -> Void,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let write = PendingWrite { tx in
            let value = try body(tx)
            return {
                afterCommit(value)
                completion(.success(value))
            }
        } fail: { error in
            completion(.failure(error))
        }
        let startDrain = pending.withLock { pending in
            pending.writes.append(write)
            if pending.draining { return false }
            pending.draining = true
            return true
        }
        if startDrain { queue.async { self.drain() } }
    }

    /// Runs `body` on the writer connection inside the next group commit, like a change (it may run again);
    /// returns once that commit is durable. For bookkeeping rows that are not order changes.
    func enqueue(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        try await write({ transaction in try body(WriteTransaction(transaction).db) }, afterCommit: { _ in })
    }

    /// Runs batches until no write is waiting. Only on `queue`.
    private func drain() {
        while true {
            let batch = pending.withLock { pending in
                let batch = pending.writes
                pending.writes.removeAll(keepingCapacity: true)
                if batch.isEmpty { pending.draining = false }
                return batch
            }
            if batch.isEmpty { return }
            waitForExternalCheckpoint()
            commit(batch)
        }
    }

    static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Whether the path still names the file the writer has open.
    private func fileIsStillThere() -> Bool {
        guard let fileIdentity, let now = Self.identity(of: path) else { return false }
        return now == fileIdentity
    }

    /// One group commit: a transaction (`BEGIN IMMEDIATE`), the writes one after another, `COMMIT`, then resume
    /// every caller in commit order. A write that fails fails alone; a failure that made SQLite roll back the whole
    /// transaction (a full disk, an I/O error) takes the writes before it along, and the writes after it go into a
    /// new transaction.
    ///
    /// A write runs without a savepoint of its own at first: a savepoint copies every page the write touches into
    /// the statement journal, for a rollback that almost never comes (a change that is refused, such as an order
    /// not found or a step its status does not allow, is refused before it writes a row). A write that fails
    /// having changed no row (``Database/totalChanges`` did not move: SQLite undoes a failed statement itself)
    /// left nothing behind, so it fails alone and the transaction goes on. Only a write that fails after it
    /// changed rows needs undoing: then the whole transaction is rolled back and the same writes run again, each
    /// in its own savepoint, so that one fails alone as before. Write bodies change the database only through
    /// `INSERT`, `UPDATE` and `DELETE`, and keep nothing outside it, so running one again is the same as running it
    /// once.
    private func commit(_ batch: [PendingWrite]) {
        if readOnly.value {
            // Not recorded as the last failure: `currentStorageFailure` reports read-only from the flag itself.
            batch.forEach { $0.fail(StorageError.readOnly(path: path)) }
            return
        }
        guard fileIsStillThere() else {
            let failure = storage(StorageError.vanished(path: path))
            batch.forEach { $0.fail(failure) }
            return
        }
        let writer = self.writer
        var remaining = batch[...]
        // After a write failed having changed rows: each write of this batch in its own savepoint.
        var careful = false
        while !remaining.isEmpty {
            let started = ContinuousClock.now
            let attempt = remaining
            var began = false
            var done: [(write: PendingWrite, resume: @Sendable () -> Void)] = []
            var numbers = TransactionNumbers()
            var dataVersion: Int64 = 0
            var failedAlone = false
            do {
                try writer.transaction {
                    began = true
                    // Counted on from the last commit only while nothing else wrote since; else read afresh.
                    dataVersion = try writer.dataVersion()
                    if let carried = carriedNumbers, carried.dataVersion == dataVersion { numbers = carried.numbers }
                    carriedNumbers = nil
                    let transaction = WriteTransaction(db: writer, numbers: numbers)
                    while let write = remaining.popFirst() {
                        let mark = transaction.numbers.mark
                        let changesBefore = writer.totalChanges
                        do {
                            let resume =
                                careful
                                ? try writer.savepoint { try write.run(transaction) } : try write.run(transaction)
                            done.append((write, resume))
                        } catch {
                            if !careful, writer.isInTransaction, writer.totalChanges != changesBefore {
                                throw RunAgainWithSavepoints()
                            }
                            transaction.numbers.rewind(to: mark)
                            failedAlone = true
                            let failure = storage(error)
                            write.fail(failure)
                            // No transaction left: the writes before this one are gone with it.
                            if !writer.isInTransaction { throw failure }
                        }
                    }
                }
            } catch is RunAgainWithSavepoints {
                remaining = attempt
                careful = true
                continue
            } catch {
                let failure = storage(error)
                if !began {
                    remaining.forEach { $0.fail(failure) }
                    return
                }
                done.forEach { $0.write.fail(failure) }
                continue
            }
            if !failedAlone { carriedNumbers = (numbers, dataVersion) }
            // Only a commit that wrote something proves the storage works again: a batch whose every change failed
            // commits an empty transaction, which succeeds even on a read-only or full disk.
            if !done.isEmpty {
                clearStorageFailure()
                groupCommitObserver.value?(done.count, ContinuousClock.now - started)
            }
            done.forEach { $0.resume() }
        }
    }

    /// Thrown out of a group commit's transaction (which rolls it back) when a write failed after it changed rows.
    private struct RunAgainWithSavepoints: Error {}

    private func storage(_ error: any Error) -> any Error {
        if let failure = error as? StorageError {
            storageFailure.withLock { $0 = failure }
            return failure
        }
        guard let sqlite = error as? SQLiteError, sqlite.isStorageFailure else { return error }
        if sqlite.code == .readonly {
            // The file (or its mapping) cannot be written: refuse changes at once, as for a file opened read-only,
            // and let the health check reopen it when it can be written again.
            readOnly.withLock { $0 = true }
            return StorageError.readOnly(path: path)
        }
        let failure = StorageError.unavailable(sqlite)
        storageFailure.withLock { $0 = failure }
        return failure
    }

    private func clearStorageFailure() { storageFailure.withLock { $0 = nil } }

    /// The last storage failure, until a commit succeeds again.
    public var currentStorageFailure: StorageError? {
        if readOnly.value { return .readOnly(path: path) }
        return storageFailure.withLock { $0 }
    }

    /// Runs `body` on the writer connection, between group commits.
    public func withWriter<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                // The block may write any table: the next group commit reads its numbers afresh.
                self.carriedNumbers = nil
                continuation.resume(with: Result { try body(self.writer) })
            }
        }
    }

    // MARK: Reading

    /// Runs `body` on a read connection of its own.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try readers.read(body)
        } catch let error as SQLiteError where error.isStorageFailure {
            throw StorageError.unavailable(error)
        }
    }

    public func cart(id: Int64) throws -> Cart? { try read { try $0.loadCart(id: id) } }
    public func cart(ref: String) throws -> Cart? { try read { try $0.loadCart(ref: ref) } }
    public func list(_ query: OrderQuery) throws -> OrderPage { try read { try $0.listCarts(query) } }
    public func countsByStatus() throws -> [OrderStatus: Int] { try read { try $0.countCartsByStatus() } }

    /// A passive checkpoint on the checkpointer's connection, beside the writer: the WAL's length in frames and
    /// how many of them are in the database file now (fewer when a reader still needs the rest).
    /// Left to another program (``CheckpointPolicy/external``), no checkpoint is run: the WAL's length and how much
    /// of it that program has copied back, from the wal-index.
    public func checkpointWAL() async throws -> (log: Int, checkpointed: Int) {
        guard checkpoints == .pizzad else {
            let index = WALIndex(path: path + "-shm").read() ?? (0, 0)
            return (index.frames, index.backfilled)
        }
        return try await checkpointer.checkpoint()
    }

    /// Checkpoints the WAL (truncating it) and closes the readers and the checkpointer; the writer closes when
    /// the store is released.
    public func close() async {
        checkpointer.close()
        _ = try? await withWriter { db in try db.checkpoint(truncate: true) }
        readers.close()
    }
}
