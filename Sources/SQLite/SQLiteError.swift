internal import CSQLite

/// An error reported by libsqlite3, carrying everything needed to act on it.
///
/// Catch it by primary code (`error.code == .full`) or by extended code. See
/// <https://www.sqlite.org/rescode.html>.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_FULL`, …).
    public let code: ResultCode
    /// The extended result code (`SQLITE_IOERR_FSYNC`, …), equal to `code` when SQLite gave none.
    public let extendedCode: Int32
    /// SQLite's own message for the failure.
    public let message: String
    /// The SQL being run, when there was one.
    public let sql: String?

    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = ResultCode(rawValue: code & 0xff)
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(code.rawValue) (\(code.name), extended \(extendedCode)): \(message)"
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }

    /// Whether the failure is about the storage itself (disk full, read-only, I/O, lock) rather than the statement.
    public var isStorageFailure: Bool {
        [.full, .ioerr, .readonly, .cantopen, .busy, .locked, .nomem, .corrupt, .notadb, .perm].contains(code)
    }
}

/// A primary SQLite result code. See <https://www.sqlite.org/rescode.html#primary_result_code_list>.
public struct ResultCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let ok = ResultCode(rawValue: SQLITE_OK)
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let perm = ResultCode(rawValue: SQLITE_PERM)
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let nomem = ResultCode(rawValue: SQLITE_NOMEM)
    public static let readonly = ResultCode(rawValue: SQLITE_READONLY)
    public static let ioerr = ResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let cantopen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    public static let notadb = ResultCode(rawValue: SQLITE_NOTADB)

    /// SQLite's English name for the code (`"database or disk is full"`).
    public var name: String { String(cString: sqlite3_errstr(rawValue)) }
}
