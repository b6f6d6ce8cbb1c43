import Foundation
public import PizzaCore
public import SQLite

/// The SQLite ``OrderStore``: one writer with group commit, a pool of readers.
///
/// Writes queue up while a commit is in flight and go together into the next transaction; one failing change
/// fails alone (see ``GroupCommitWriter``). Every caller is resumed only after `COMMIT` returned, with
/// `synchronous=FULL`, so nothing is acknowledged before it is durable.
public final class SQLiteOrderStore: OrderStore {
    /// The write handle a change's body and the storage's subscribers get.
    public typealias Transaction = WriteTransaction

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

    /// The writer, its group commit and the rules it keeps (read-only, storage failures, numbers carried over).
    private let writer: GroupCommitWriter<OrderWriteRules>
    private let rules: OrderWriteRules
    private let readers: ReaderPool
    private let checkpointer: Checkpointer
    /// The targets of the backups being written now (standardized paths): a second backup to one of them would
    /// remove the first one's `.partial` file as a leftover and both would fail, or worse.
    let backupsInFlight = Locked<Set<String>>([])
    /// The figures folded since the last Z by the last X (its number), so that the next folds on from there.
    let runningFigures = Locked<(number: Int64, figures: ReportFigures)?>(nil)

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
        let writer = try Self.openWriter(path: path, readOnlyMode: readOnlyMode)
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
        self.path = path
        self.settings = settings
        self.checkpoints = checkpoints
        self.schemaVersion = migrations.last?.version ?? 0
        self.rules = OrderWriteRules(path: path, checkpoints: checkpoints, readOnly: readOnlyMode != nil)
        self.writer = GroupCommitWriter(connection: writer, rules: rules, label: "pizzad.writer")
        self.readers = ReaderPool(keep: readers, open: Self.reader(path: path, settings: settings, mode: readOnlyMode))
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
        // A write-ahead log with no frame (none, or only its 32-byte header: a cleanly closed or truncated one)
        // holds nothing beyond the file, which is then read as it is. One with frames needs its index (-shm).
        return walBytes(of: path) == nil ? .immutable : .readOnly
    }

    /// The size of the database's write-ahead log when it can hold a frame (more than its 32-byte header).
    private static func walBytes(of path: String) -> Int64? {
        var wal = stat()
        guard stat(path + "-wal", &wal) == 0, wal.st_size > 32 else { return nil }
        return Int64(wal.st_size)
    }

    private static func openWriter(path: String, readOnlyMode: Database.OpenMode?) throws -> Database {
        guard let readOnlyMode else { return try Database(path: path, mode: .readWriteCreate) }
        // SQLite reads a read-only WAL database only with its -shm beside it (or made there, which a read-only
        // folder does not allow); without, its first read fails with "unable to open database file".
        if let failure = readOnlyOpenFailure(of: path) { throw failure }
        return try Database(path: path, mode: readOnlyMode)
    }

    /// Why a read-only database cannot be read: its write-ahead log has frames and no index beside it.
    static func readOnlyOpenFailure(of path: String) -> StorageError? {
        guard let bytes = walBytes(of: path), !FileManager.default.fileExists(atPath: path + "-shm") else { return nil }
        return .readOnlyWALWithoutIndex(path: path, walBytes: bytes)
    }

    /// Whether changes are refused because the file cannot be written.
    public var isReadOnly: Bool { rules.readOnly.value }

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
        // On the writer's queue, between group commits.
        let rules = rules
        let checkpoints = checkpoints
        return try await writer.withConnection { connection in
            // Opening reads nothing yet; the old (read-only) writer is closed before the new one first reads.
            let writable = try Database(path: path, mode: .readWrite)
            connection = writable
            rules.carriedNumbers = nil
            do {
                try writable.configure(settings)
                try writable.transaction {}
            } catch let error as SQLiteError where error.code == .readonly {
                // Still flagged read-only: changes are refused, and the next round tries again.
                return false
            }
            writable.onWALCommit(Self.walHook(checkpoints, checkpointer))
            rules.readOnly.withLock { $0 = false }
            rules.clearStorageFailure()
            return true
        }
    }

    /// Sets what hears of every group commit that wrote something: how many changes, and how long it took from
    /// `BEGIN` to the durable `COMMIT`. Called on the writer's queue after the commit, before callers resume: keep
    /// it to a few atomic updates.
    public func observeGroupCommits(_ observer: @escaping @Sendable (_ changes: Int, _ duration: Duration) -> Void) {
        rules.groupCommitObserver.withLock { $0 = observer }
    }

    // MARK: Writing

    /// Runs `change` in the next group commit (``OrderStore/submit(_:)``).
    public func submit(_ change: PendingChange<SQLiteOrderStore>) { writer.submit(change) }

    /// Runs `change`, which belongs to no order, in the next group commit.
    public func submit(_ change: PendingShopChange<SQLiteOrderStore>) { writer.submit(change) }

    /// Runs `body` on the writer connection inside the next group commit, like a change (it may run again);
    /// returns once that commit is durable. For bookkeeping rows that are not order changes.
    func enqueue(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writer.submit { transaction in
                try body(transaction.db)
                return { continuation.resume() }
            } fail: { error in
                continuation.resume(throwing: error)
            }
        }
    }

    /// The last storage failure, until a commit succeeds again.
    public var currentStorageFailure: StorageError? { rules.currentStorageFailure }

    /// Runs `body` on the writer connection, between group commits.
    public func withWriter<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let rules = rules
        return try await writer.withConnection { db in
            // The block may write any table: the next group commit reads its numbers afresh.
            rules.carriedNumbers = nil
            return try body(db)
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

    /// Checkpoints the WAL (truncating it) and closes the checkpointer, the readers and the writer's connection:
    /// nothing of the database's files stays open.
    public func close() async {
        checkpointer.close()
        let rules = rules
        _ = try? await writer.withConnection { db in
            rules.carriedNumbers = nil
            try db.checkpoint(truncate: true)
        }
        // The file's connections close now, not when the last reference to the store goes (a process's exit did
        // that; a daemon run in a test's process, or a restore after a stop, needs them closed): the writer's is
        // replaced by an empty one in memory, so a write after the store closed fails and touches no file.
        _ = try? await writer.withConnection { db in db = try Database(path: ":memory:") }
        readers.close()
    }
}
