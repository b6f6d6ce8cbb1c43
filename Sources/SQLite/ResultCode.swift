internal import CSQLite

/// A primary SQLite result code. See <https://www.sqlite.org/rescode.html#primary_result_code_list>.
public struct ResultCode: RawRepresentable, Hashable, Sendable {
    /// The code's number (`SQLITE_FULL` is 13).
    public let rawValue: Int32
    /// The code with this number.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Success.
    public static let ok = ResultCode(rawValue: SQLITE_OK)
    /// A generic error (a constraint of the SQL, a missing table).
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    /// The file system refused access.
    public static let perm = ResultCode(rawValue: SQLITE_PERM)
    /// A callback asked to stop.
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    /// Another connection holds the lock past the busy timeout.
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    /// A conflict within this connection (a table in use).
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    /// An allocation failed.
    public static let nomem = ResultCode(rawValue: SQLITE_NOMEM)
    /// The database cannot be written (a read-only file or folder, `query_only`).
    public static let readonly = ResultCode(rawValue: SQLITE_READONLY)
    /// The operating system reported an I/O error.
    public static let ioerr = ResultCode(rawValue: SQLITE_IOERR)
    /// The file is damaged.
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    /// The disk, or the database's page limit, is full.
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    /// The file could not be opened.
    public static let cantopen = ResultCode(rawValue: SQLITE_CANTOPEN)
    /// A constraint refused the row (`CHECK`, `UNIQUE`, `NOT NULL`, a foreign key).
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    /// A value of the wrong type for a strict column or rowid.
    public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
    /// The library was used in a way it does not allow.
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    /// The file is not an SQLite database.
    public static let notadb = ResultCode(rawValue: SQLITE_NOTADB)

    /// SQLite's English name for the code (`"database or disk is full"`).
    public var name: String { String(cString: sqlite3_errstr(rawValue)) }
}
