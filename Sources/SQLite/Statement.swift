internal import CSQLite

/// A prepared statement. See <https://www.sqlite.org/c3ref/stmt.html>.
///
/// Owned by one `Database`; each run resets it and binds every parameter anew, so a cached statement can be
/// reused freely on the connection's thread.
public final class Statement {
    let handle: OpaquePointer
    /// The SQL the statement was prepared from.
    public let sql: String
    unowned let database: Database
    /// How many parameters the SQL has.
    let parameterCount: Int

    init(database: Database, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw database.error(code: code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = database
        self.parameterCount = Int(sqlite3_bind_parameter_count(statement))
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `arguments` to the parameters `?1…?n`, after resetting the statement. Every parameter is bound anew
    /// (the count must match), so nothing of the last run's values is left to clear first.
    public func bind(_ arguments: [any SQLBindable]) throws(SQLiteError) {
        sqlite3_reset(handle)
        try checkCount(arguments.count)
        for (offset, argument) in arguments.enumerated() {
            try bind(argument.sqlValue, at: Int32(offset + 1))
        }
    }

    private func bind(_ value: SQLValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
        case .real(let double): code = sqlite3_bind_double(handle, index, double)
        case .text(let text): code = Bindings.bindText(text, to: handle, at: index)
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), pizzad_sqlite3_transient())
            }
        }
        guard code == SQLITE_OK else { throw database.error(code: code, sql: sql) }
    }

    /// Throws unless `count` parameters is what the statement has.
    private func checkCount(_ count: Int) throws(SQLiteError) {
        guard parameterCount == count else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "expected \(parameterCount) arguments, got \(count)", sql: sql)
        }
    }

    /// Steps the bound statement to its end, ignoring any rows, and resets it.
    private func runToCompletion() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            if code != SQLITE_ROW { throw database.error(code: code, sql: sql) }
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    public func execute(_ arguments: [any SQLBindable] = []) throws(SQLiteError) {
        try bind(arguments)
        try runToCompletion()
    }

    /// Runs the statement, calling `body` with each row in turn.
    public func forEach<E: Error>(
        _ arguments: [any SQLBindable] = [], _ body: (Row) throws(E) -> Void
    ) throws {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw database.error(code: code, sql: sql) }
            try body(Row(handle: handle))
        }
    }

    /// Runs the statement to completion, ignoring any rows, with its parameters bound by `bind` in order (see
    /// ``Bindings``): the form for statements on the write path. Throws when SQLite refused a value or `bind` bound
    /// a different number of parameters than the statement has.
    public func execute(binding bind: (inout Bindings) -> Void) throws(SQLiteError) {
        sqlite3_reset(handle)
        var bindings = Bindings(handle: handle)
        bind(&bindings)
        if bindings.failure != SQLITE_OK { throw database.error(code: bindings.failure, sql: sql) }
        try checkCount(bindings.count)
        try runToCompletion()
    }

    /// Runs the statement and maps every row.
    public func map<T>(_ arguments: [any SQLBindable] = [], _ transform: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEach(arguments) { row in result.append(try transform(row)) }
        return result
    }

    /// Runs the statement and maps the first row, if any.
    public func first<T>(_ arguments: [any SQLBindable] = [], _ transform: (Row) throws -> T) throws -> T? {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw database.error(code: code, sql: sql) }
        return try transform(Row(handle: handle))
    }
}
