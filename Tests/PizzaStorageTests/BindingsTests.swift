import Foundation
import PizzaTesting
import SQLite
import Testing

@Suite("Binding a statement's parameters one typed call at a time")
struct BindingsTests {
    /// A fresh database with a table of every kind of column the write path binds, removed after `body`.
    private func withTable(_ body: (Database) throws -> Void) throws {
        let temporary = try TemporaryFolder("pizzad-bindings")
        defer { temporary.remove() }
        let folder = temporary.path
        let db = try Database(path: folder + "/t.sqlite")
        try db.execute("CREATE TABLE t (a, b, c, d, e, f, g, h, i, j)")
        try body(db)
    }

    @Test("every type stores what the array of values stores: integers, Booleans, text (empty, non-ASCII), NULLs")
    func sameAsArray() throws {
        try withTable { db in
            let text = "pizzería, \u{1F355}"
            let noText: String? = nil
            let noNumber: Int64? = nil
            let sql: StaticString = "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            try db.execute(
                literal: sql,
                [Int64.min, 42, Int32(-7), Int64(UInt32.max), true, "", text, noText, noNumber, Optional("x")])
            try db.execute(literal: sql) { row in
                row.bind(Int64.min)
                row.bind(42)
                row.bind(Int32(-7))
                row.bind(UInt32.max)
                row.bind(true)
                row.bind("")
                row.bind(text)
                row.bind(noText)
                row.bind(noNumber)
                row.bind(Optional("x") as String?)
            }
            let rows = try db.statement(
                "SELECT typeof(a), a, typeof(b), b, c, d, e, typeof(f), f, g, typeof(h), typeof(i), j FROM t ORDER BY rowid"
            ).map { row in (0..<row.count).map { row.value($0) } }
            #expect(rows.count == 2)
            #expect(rows[0] == rows[1])
            #expect(
                rows[1] == [
                    "integer", .integer(Int64.min), "integer", 42, -7, .integer(Int64(UInt32.max)), 1, "text", "",
                    .text(text), "null", "null", "x",
                ])
        }
    }

    @Test("too few or too many parameters bound: a named error and no row written")
    func wrongCount() throws {
        try withTable { db in
            let insert: StaticString = "INSERT INTO t (a, b) VALUES (?, ?)"
            let tooFew = #expect(throws: SQLiteError.self) {
                try db.execute(literal: insert) { row in row.bind(1) }
            }
            #expect(tooFew?.code == ResultCode(rawValue: 25), "\(String(describing: tooFew))")
            #expect(tooFew?.message == "expected 2 arguments, got 1")
            let tooMany = #expect(throws: SQLiteError.self) {
                try db.execute(literal: insert) { row in
                    row.bind(1)
                    row.bind(2)
                    row.bind("three")
                }
            }
            #expect(tooMany?.code == ResultCode(rawValue: 25), "\(String(describing: tooMany))")
            #expect(try db.scalar("SELECT count(*) FROM t") == 0)
            // The statement is still usable afterwards.
            try db.execute(literal: insert) { row in
                row.bind(1)
                row.bind(2)
            }
            #expect(try db.scalar("SELECT count(*) FROM t") == 1)
        }
    }
}
