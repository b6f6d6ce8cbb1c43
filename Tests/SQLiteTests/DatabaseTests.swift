import Foundation
import PizzaTesting
import SQLite
import Testing

/// The thin wrapper over libsqlite3: transactions, savepoints, the statement cache and named errors.
///
/// One test at a time: the statement-journal test looks for SQLite's temporary files among the whole process's open
/// files, and the big-statement test beside it makes some (a fresh-clone CI run saw two of its files and failed).
@Suite("SQLite: the wrapper over libsqlite3", .serialized)
struct DatabaseTests {
    struct Refused: Error {}

    /// A fresh database file in its own folder, removed afterwards.
    final class Scratch {
        let temporary: TemporaryFolder
        var folder: String { temporary.path }
        let db: Database
        init() throws {
            temporary = try TemporaryFolder("pizzad-sqlite")
            db = try Database(path: temporary.path + "/test.sqlite")
            try db.execute("PRAGMA journal_mode=WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT")
        }
        func count() throws -> Int64 { try db.statement("SELECT count(*) FROM t").first { $0.int64(0) } ?? -1 }
    }

    @Test("a SQL literal finds the statement its text prepared, and runs with its arguments")
    func literalStatements() throws {
        let scratch = try Scratch()
        let db = scratch.db
        let byText = try db.statement("SELECT count(*) FROM t WHERE v = ?")
        #expect(try db.statement(literal: "SELECT count(*) FROM t WHERE v = ?") === byText)
        // Found again by the literal's address, not prepared anew.
        #expect(try db.statement(literal: "SELECT count(*) FROM t WHERE v = ?") === byText)
        try db.execute(literal: "INSERT INTO t (v) VALUES (?)", ["once"])
        #expect(try byText.first(["once"]) { $0.int64(0) } == 1)
        #expect(throws: SQLiteError.self) { try db.statement(literal: "SELECT nonsense FROM nowhere") }
    }

    @Test("SQLite's small blocks come back from the thread's pool; texts of every size round-trip through it")
    func pooledAllocations() throws {
        let scratch = try Scratch()
        let db = scratch.db
        // Sizes across the pool's classes (32 bytes to 2 KiB) and beyond it, so that blocks grow through realloc.
        let sizes = [0, 1, 31, 33, 100, 500, 1_000, 2_047, 2_049, 5_000, 70_000]
        try db.transaction {
            for (index, size) in sizes.enumerated() {
                let text = String(repeating: Character(UnicodeScalar(UInt8(65 + index % 26))), count: size)
                try db.execute(literal: "INSERT INTO t (v) VALUES (?)", [text])
            }
        }
        let read = try db.statement("SELECT v FROM t ORDER BY id").map { $0.string(0) }
        #expect(read.map(\.utf8.count) == sizes)
        for (index, text) in read.enumerated() {
            #expect(text.utf8.allSatisfy { $0 == UInt8(65 + index % 26) }, "row \(index) came back changed")
        }
        #expect(Database.pooledBlocksOnThisThread > 0, "SQLite's freed blocks went to free(), not to the pool")
    }

    @Test("a transaction commits what its body did, and rolls all of it back when the body throws")
    func transaction() throws {
        let scratch = try Scratch()
        let db = scratch.db
        try db.transaction { try db.execute("INSERT INTO t (v) VALUES (?)", ["kept"]) }
        #expect(throws: Refused.self) {
            try db.transaction {
                try db.execute("INSERT INTO t (v) VALUES (?)", ["gone"])
                throw Refused()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try scratch.count() == 1)
    }

    @Test("a savepoint that throws rolls back only itself; the transaction around it commits the rest")
    func savepoints() throws {
        let scratch = try Scratch()
        let db = scratch.db
        try db.transaction {
            try db.savepoint { try db.execute("INSERT INTO t (v) VALUES (?)", ["first"]) }
            do {
                try db.savepoint {
                    try db.execute("INSERT INTO t (v) VALUES (?)", ["second"])
                    throw Refused()
                }
                Issue.record("the savepoint's body threw, but the savepoint did not")
            } catch {
                #expect(error is Refused, "\(error)")
            }
            #expect(db.isInTransaction)
            try db.savepoint { try db.execute("INSERT INTO t (v) VALUES (?)", ["third"]) }
        }
        #expect(try db.statement("SELECT group_concat(v) FROM t").first { $0.string(0) } == "first,third")
    }

    @Test("the count of changed rows moves with every row written, and not for a statement that failed half-way")
    func totalChanges() throws {
        let scratch = try Scratch()
        let db = scratch.db
        try db.execute("CREATE TABLE u (k INTEGER NOT NULL UNIQUE) STRICT")
        try db.transaction {
            let start = db.totalChanges
            try db.execute("INSERT INTO u (k) VALUES (1)", [])
            #expect(db.totalChanges == start + 1)
            let before = db.totalChanges
            // Two rows go in before the third collides; SQLite undoes the statement's two rows itself.
            #expect(throws: SQLiteError.self) {
                try db.execute("INSERT INTO u (k) SELECT column1 FROM (VALUES (2), (3), (1))", [])
            }
            #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO u (k) VALUES (NULL)", []) }
            #expect(db.isInTransaction)
            #expect(db.totalChanges == before)
            #expect(try db.statement("SELECT group_concat(k) FROM u").first { $0.string(0) } == "1")
            _ = try db.statement("SELECT count(*) FROM u").first { $0.int64(0) }
            #expect(db.totalChanges == before, "a read changed the count")
            try db.execute("UPDATE u SET k = k + 10", [])
            #expect(db.totalChanges == before + 1)
        }
    }

    @Test("a failing statement is a named error with its code, extended code, message and SQL")
    func errors() throws {
        let scratch = try Scratch()
        do {
            try scratch.db.execute("INSERT INTO t (v) VALUES (?)", [SQLValue.null])
            Issue.record("a NULL into a NOT NULL column was accepted")
        } catch {
            #expect(error.code == .constraint)
            #expect(error.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
            #expect(error.message.contains("NOT NULL"))
            #expect(error.sql == "INSERT INTO t (v) VALUES (?)")
            #expect(!error.isStorageFailure)
        }
        #expect(throws: SQLiteError.self) { try scratch.db.statement("SELECT nonsense FROM nowhere") }
    }

    @Test("SQLite keeps no memory statistics (their global mutex is taken on every allocation)")
    func memoryStatisticsAreOff() throws {
        let scratch = try Scratch()
        try scratch.db.execute("INSERT INTO t (v) VALUES (?)", [String(repeating: "x", count: 10_000)])
        #expect(try scratch.count() == 1)
        #expect(!Database.keepsMemoryStatistics)
    }

    @Test("a savepoint's statement journal of 80 KiB stays in memory: no temporary file")
    func statementJournalInMemory() throws {
        let scratch = try Scratch()
        let db = scratch.db
        try db.transaction {
            for row in 0..<60 {
                try db.execute("INSERT INTO t (v) VALUES (?)", [String(repeating: "a", count: 1000 + row)])
            }
        }
        /// SQLite's temporary files are named `etilqs_…` and unlinked at once; an open one still shows in `/proc`.
        func temporaryFiles() -> [String] {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
                .filter { $0.contains("etilqs_") }
        }
        var during: [String] = []
        try db.transaction {
            // Only files that appear while the savepoint is open count: tests in other suites run beside this one.
            let before = Set(temporaryFiles())
            try db.savepoint {
                // Every page of the table is copied into the statement journal: about 20 pages, more than SQLite's
                // default spill of 64 KiB, less than pizzad's.
                try db.execute("UPDATE t SET v = v || 'b'", [])
                during = temporaryFiles().filter { !before.contains($0) }
            }
        }
        #expect(during == [], "the statement journal went to a file: \(during)")
        #expect(try db.statement("SELECT count(*) FROM t WHERE v LIKE '%b'").first { $0.int64(0) } == 60)
    }

    @Test("a statement of 600,000 rows in a transaction commits (with a limit above 128 KiB, SQLite 3.40.1 refused it)")
    func bigStatementInTransaction() throws {
        let scratch = try Scratch()
        let db = scratch.db
        try db.execute("CREATE TABLE c (id INTEGER PRIMARY KEY, x INTEGER NOT NULL)")
        try db.execute("CREATE TABLE p (id INTEGER PRIMARY KEY, cart INTEGER NOT NULL, k TEXT NOT NULL)")
        try db.execute("CREATE INDEX p_cart ON p (cart)")
        // The benchmark's big database is filled like this. With the limit above 128 KiB, SQLite 3.40.1 failed the
        // second statement with SQLITE_FULL ("database or disk is full").
        try db.transaction {
            try db.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) INSERT INTO c SELECT i, i FROM n",
                [])
            try db.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
                INSERT INTO p SELECT 2 * i - 1, i, 'chicken' FROM n UNION ALL SELECT 2 * i, i, 'cheese' FROM n
                """, [])
        }
        #expect(try db.statement("SELECT count(*) FROM p").first { $0.int64(0) } == 600_000)
    }

    @Test("prepared statements are cached per SQL text and reset between uses")
    func statementCache() throws {
        let scratch = try Scratch()
        let insert = try scratch.db.statement("INSERT INTO t (v) VALUES (?)")
        #expect(try scratch.db.statement("INSERT INTO t (v) VALUES (?)") === insert)
        for value in ["a", "b", "c"] { try scratch.db.execute("INSERT INTO t (v) VALUES (?)", [value]) }
        #expect(try scratch.db.statement("SELECT v FROM t ORDER BY id").map { $0.string(0) } == ["a", "b", "c"])
        #expect(try scratch.db.statement("SELECT v FROM t ORDER BY id").map { $0.string(0) } == ["a", "b", "c"])
    }

    @Test("a file that is no database, and a path that cannot be opened, are named errors")
    func opening() throws {
        let scratch = try Scratch()
        let text = scratch.folder + "/notes.txt"
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: text))
        do {
            let db = try Database(path: text, mode: .readWrite)
            _ = try db.statement("SELECT count(*) FROM sqlite_master").first { $0.int64(0) }
            Issue.record("a text file opened as a database")
        } catch let error as SQLiteError {
            #expect(error.code == .notadb)
            #expect(error.isStorageFailure)
        }
        #expect(throws: SQLiteError.self) { try Database(path: scratch.folder + "/missing/x.sqlite", mode: .readWrite) }
    }
}
