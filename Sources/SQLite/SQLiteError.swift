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

    /// Whether a `UNIQUE` constraint (or a unique index) refused the statement (`SQLITE_CONSTRAINT_UNIQUE`, a C
    /// macro Swift does not import: `SQLITE_CONSTRAINT | (8 << 8)`).
    public var isUniqueConstraint: Bool { extendedCode == SQLITE_CONSTRAINT | (8 << 8) }

    /// Whether the failure is about the storage itself (disk full, read-only, I/O, lock) rather than the statement.
    public var isStorageFailure: Bool {
        [.full, .ioerr, .readonly, .cantopen, .busy, .locked, .nomem, .corrupt, .notadb, .perm].contains(code)
    }
}
