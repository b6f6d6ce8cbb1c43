internal import CSQLite
internal import CSQLiteWAL

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to an SQLite database file. See <https://www.sqlite.org/c3ref/sqlite3.html>.
///
/// A connection has one user at a time: the daemon's writer thread owns the write connection for its whole life,
/// and a `ReaderPool` hands each read connection to exactly one caller between checkout and return. Under that rule
/// the statement cache and transaction state are never touched concurrently, which is what makes the
/// `@unchecked Sendable` below sound. The same rule is what SQLite's multi-thread mode asks for, so the handle is
/// opened `SQLITE_OPEN_NOMUTEX`: no mutex taken and released around every `bind`, `step` and `reset` (with
/// `SQLITE_OPEN_FULLMUTEX` that was 3-4% of the writer thread's samples under load). A break of the rule is a data
/// race on this class's own state first, which ThreadSanitizer reports (`swift test --sanitize=thread`).
/// See <https://www.sqlite.org/threadsafe.html>.
public final class Database: @unchecked Sendable {
    /// How to open the file.
    public enum OpenMode: Sendable {
        /// Read and write; create the file when it does not exist.
        case readWriteCreate
        /// Read and write an existing file only.
        case readWrite
        /// Read only (`SQLITE_OPEN_READONLY`).
        case readOnly
        /// Read only, and the file is never written by anyone while it is open (`immutable=1`): no locks and no
        /// `-shm` file, so a WAL database with no `-wal` file opens even where nothing may be created.
        /// See <https://www.sqlite.org/uri.html#uriimmutable>.
        case immutable
    }

    let handle: OpaquePointer
    /// The path the connection was opened with.
    public let path: String
    private var cache: [String: Statement] = [:]
    /// The same statements, for SQL given as a literal, by the literal's address (see ``statement(literal:)``).
    private var literals = LiteralStatements()
    /// The closure behind ``onWALCommit(_:)``, kept alive as long as the connection.
    private var walHook: WALHook?

    /// Opens `path`. Nothing is written to the file until a statement writes.
    public init(path: String, mode: OpenMode = .readWriteCreate) throws(SQLiteError) {
        let vfs = Self.configuredVFS
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly, .immutable: flags |= SQLITE_OPEN_READONLY
        }
        let name = mode == .immutable ? Self.uri(path: path, query: "immutable=1") : path
        var db: OpaquePointer?
        let code = sqlite3_open_v2(name, &db, flags, vfs)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            let extended = db.map { sqlite3_extended_errcode($0) } ?? code
            sqlite3_close_v2(db)
            throw SQLiteError(code: code, extendedCode: extended, message: "\(message): \(path)")
        }
        sqlite3_extended_result_codes(db, 1)
        self.handle = db
        self.path = path
    }

    /// Process-wide settings, made once before the first connection opens (which initializes SQLite).
    ///
    /// Memory statistics off: pizzad never asks for them (`sqlite3_memory_used`), and keeping them takes a global
    /// mutex on every `malloc` and `free` SQLite makes, about 5% of the writer thread's samples under load. If
    /// something in the process initialized SQLite first, the call is refused and the statistics stay on.
    ///
    /// Statement journals in memory up to ``statementJournalSpillBytes``: a savepoint (the writer's, one per change,
    /// when a group commit runs again after one of its changes failed) copies every page the change touches (about ten for an order, 40 KiB) into the statement
    /// journal, dropped again at `RELEASE`. Held in memory, that journal is one allocation of the spill size. (With
    /// `temp_store = MEMORY`, as the writer had before, it is never spilled but grows 1 KiB at a time: about 45
    /// `malloc`s and `free`s of 1 KiB for every order, each large enough to make glibc consolidate its fast bins.
    /// With SQLite's default spill of 64 KiB, a change that splits pages goes over and writes a file in `/var/tmp`.)
    ///
    /// SQLite's small allocations come from per-thread free lists (`Sources/CSQLiteWAL/sqlite_memory.c`), as its
    /// lookaside would give them if Debian's build had it (`SQLITE_OMIT_LOOKASIDE`): about 65 `malloc`s and `free`s
    /// an order fewer.
    ///
    /// The value is the VFS every connection opens with: SQLite's default one, except that a transaction's WAL
    /// frames are gathered in memory and written with one `pwrite` once its commit frame is complete, instead of
    /// two a frame (`Sources/CSQLiteWAL`); the files are the same as without it. Nil (the default VFS) if it could
    /// not be registered.
    private static let configuredVFS: String? = {
        _ = pizzad_sqlite3_config_memstatus(0)
        // PIZZAD_SQLITE_MALLOC=system leaves SQLite on glibc's malloc, to weigh the pool against it (docs/PERFORMANCE.md
        // has the runs that did).
        if getenv("PIZZAD_SQLITE_MALLOC").map({ String(cString: $0) }) != "system" {
            _ = pizzad_sqlite_memory_install()
        }
        _ = pizzad_sqlite3_config_stmtjrnl_spill(statementJournalSpillBytes)
        let name = "pizzad-wal-gathering"
        return pizzad_wal_gathering_register(name, walGatheringBufferBytes) == SQLITE_OK ? name : nil
    }()

    /// The small blocks SQLite gave back that this thread keeps for its next allocations (its pool, see
    /// ``configuredVFS``); 0 when SQLite runs on glibc's malloc (`PIZZAD_SQLITE_MALLOC=system`).
    public static var pooledBlocksOnThisThread: Int { Int(pizzad_sqlite_memory_cached_blocks()) }

    /// Room for a group commit of 64 orders (about 45 frames of 4 KiB) and more; a larger transaction is written
    /// in pieces of this size. Allocated by a connection's WAL file on its first write: the writer's only. (What is
    /// gathered goes to the file in writes of at most 124 KiB: SQLite's own write cuts anything from 128 KiB on.)
    private static let walGatheringBufferBytes: Int32 = 1024 * 1024

    /// How large a statement journal grows in memory before SQLite moves it to a temporary file: 32 pages of 4 KiB,
    /// three times what an order's change touches. Not more: with a limit above 128 KiB, Debian's SQLite 3.40.1
    /// fails a large `INSERT … SELECT` inside a transaction with `SQLITE_FULL` (the benchmark's database of a
    /// million orders, and a plain C program doing the same; 131,072 bytes works, 140,000 does not). A test covers it.
    /// The cause: a spilled statement journal is written to its file in pieces of the limit's size, and the unix
    /// VFS's write (`seekAndWriteFd` in `os_unix.c`) masks every length with `0x1ffff`, so a piece of 128 KiB or more
    /// is cut short and the write ends as "disk full".
    public static let statementJournalSpillBytes: Int32 = 128 * 1024

    /// Whether SQLite counts the memory it uses (see ``configuredVFS``). Once a connection is open, a count of
    /// nothing means it does not.
    public static var keepsMemoryStatistics: Bool {
        var current: Int64 = 0
        var highwater: Int64 = 0
        sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highwater, 0)
        return current > 0
    }

    /// A `file:` URI for `path` with `query`, escaping what a URI reserves. See <https://www.sqlite.org/uri.html>.
    static func uri(path: String, query: String) -> String {
        var escaped: [UInt8] = []
        for byte in path.utf8 {
            if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                escaped += Array("%\(String(byte, radix: 16, uppercase: true))".utf8)
            } else {
                escaped.append(byte)
            }
        }
        // An absolute path gets an empty authority (`file:///…`), so one starting with `//` is not read as a host.
        let prefix = path.hasPrefix("/") ? "file://" : "file:"
        return prefix + String(decoding: escaped, as: UTF8.self) + "?" + query
    }

    deinit {
        literals = LiteralStatements()
        cache.removeAll()
        if walHook != nil { sqlite3_wal_hook(handle, nil, nil) }
        sqlite3_close_v2(handle)
    }

    /// Calls `body` with the number of frames in the WAL after each commit this connection makes, on the
    /// committing thread, in place of SQLite's automatic checkpoint (which copied the whole WAL back inside the
    /// `COMMIT` that crossed 1000 frames). When `body` returns true, a `PASSIVE` checkpoint runs right there on
    /// this connection, as the automatic one did. See <https://www.sqlite.org/c3ref/wal_hook.html>.
    public func onWALCommit(_ body: @escaping @Sendable (_ frames: Int) -> Bool) {
        let hook = WALHook(body)
        walHook = hook
        sqlite3_wal_hook(
            handle,
            { context, db, name, frames in
                guard let context else { return SQLITE_OK }
                if Unmanaged<WALHook>.fromOpaque(context).takeUnretainedValue().body(Int(frames)) {
                    // What sqlite3WalDefaultHook does; a failure (a reader holds the WAL) leaves it for next time.
                    _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    func error(code: Int32, sql: String? = nil) -> SQLiteError {
        SQLiteError(
            code: code, extendedCode: sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// How many writes to this connection's WAL file SQLite asked for since it was opened, and how many writes the
    /// WAL-gathering VFS (see ``configuredVFS``) made of them; nil when the connection has no WAL file open through
    /// it. For tests.
    public var walWriteCounts: (asked: Int64, made: Int64)? {
        var counts = pizzad_wal_gathering_counts()
        guard pizzad_wal_gathering_counts_of(handle, &counts) == SQLITE_OK else { return nil }
        return (counts.writesAsked, counts.writesMade)
    }

    /// The version of the linked libsqlite3, e.g. `"3.40.1"`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    // MARK: Running SQL

    /// Runs one or more SQL statements separated by semicolons, with no arguments (`sqlite3_exec`).
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: code, extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Runs one statement with arguments, through the statement cache.
    public func execute(_ sql: String, _ arguments: [any SQLBindable]) throws(SQLiteError) {
        try statement(sql).execute(arguments)
    }

    /// The cached prepared statement for `sql`, preparing it on first use.
    public func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let cached = cache[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs one statement whose SQL is a literal with arguments, through the statement cache; see
    /// ``statement(literal:)``.
    public func execute(literal sql: StaticString, _ arguments: [any SQLBindable]) throws(SQLiteError) {
        try statement(literal: sql).execute(arguments)
    }

    /// Runs one statement whose SQL is a literal, its parameters bound by `bind` in order (see ``Bindings``).
    public func execute(literal sql: StaticString, binding bind: (inout Bindings) -> Void) throws(SQLiteError) {
        try statement(literal: sql).execute(binding: bind)
    }

    /// The cached prepared statement for a SQL literal, found by the literal's address instead of by hashing its
    /// text: for the statements every change runs, whose text (100-250 bytes) was hashed and compared on every
    /// run. A literal's text never changes at its address, and two literals with the same text at different
    /// addresses share the statement through the text cache.
    public func statement(literal sql: StaticString) throws(SQLiteError) -> Statement {
        let address = UInt(bitPattern: sql.utf8Start)
        if let cached = literals.statement(at: address) { return cached }
        let statement = try statement(sql.description)
        literals.add(statement, at: address)
        return statement
    }

    /// `PRAGMA data_version`: a number that changes when another connection commits a change to the file (this
    /// connection's own commits leave it as it is). See <https://www.sqlite.org/pragma.html#pragma_data_version>.
    public func dataVersion() throws -> Int64 {
        try statement(literal: "PRAGMA data_version").first { $0.int64(0) } ?? 0
    }

    /// The first column of the first row of `sql`, or nil.
    public func scalar(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> SQLValue? {
        try statement(sql).first(arguments) { $0.value(0) }
    }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// How many rows the connection's `INSERT`, `UPDATE` and `DELETE` statements have changed since it opened,
    /// counting only statements that completed: one that failed and was undone by SQLite adds nothing. So when it
    /// has not moved across some statements, those statements left the database as it was.
    /// See <https://www.sqlite.org/c3ref/total_changes.html>.
    public var totalChanges: Int64 { sqlite3_total_changes64(handle) }
}

/// Prepared statements by the address of their SQL literal: the addresses in a short list searched in order, the
/// statement at the same index in the other. A program has a few dozen literals at most, and comparing addresses
/// costs less than hashing one (an order's 9 lookups cost 2,800 instructions in a dictionary).
private struct LiteralStatements {
    private var addresses: [UInt] = []
    private var statements: [Statement] = []

    func statement(at address: UInt) -> Statement? {
        addresses.firstIndex(of: address).map { statements[$0] }
    }

    mutating func add(_ statement: Statement, at address: UInt) {
        addresses.append(address)
        statements.append(statement)
    }
}
