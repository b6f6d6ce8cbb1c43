import Foundation
import PizzaStorage
import SQLite
import Testing

@Suite("Migrations and refusing bad files")
struct MigrationTests {
    func open(_ path: String, _ migrations: [Migration] = Fixtures.migrations) throws -> SQLiteOrderStore {
        try SQLiteOrderStore(path: path, migrations: migrations)
    }

    /// Expects opening `path` to fail with a message containing `phrase`, and the file to stay byte-identical.
    func expectRefused(_ path: String, _ migrations: [Migration] = Fixtures.migrations, saying phrase: String) throws {
        let before = try Fixtures.sha256(of: path)
        let error = #expect(throws: StorageError.self) { _ = try open(path, migrations) }
        #expect(error.map { "\($0)" }?.contains(phrase) == true, "\(String(describing: error))")
        #expect(try Fixtures.sha256(of: path) == before, "the refused file was modified")
    }

    @Test("migrations apply in order, each recorded with its checksum")
    func recorded() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        let row = try Fixtures.sqlite3(path, "SELECT version, name, length(checksum) FROM schema_migrations")
        #expect(row == "1|0001_initial.sql|64")
        #expect(try Fixtures.sqlite3(path, "PRAGMA user_version") == "1")
        // Opening again applies nothing new.
        _ = try open(path)
        #expect(try Fixtures.sqlite3(path, "SELECT count(*) FROM schema_migrations") == "1")
    }

    @Test("a later migration applies on the next start")
    func laterMigration() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        let more = Fixtures.migrations + [Migration(version: 2, name: "0002_tips.sql", sql: "ALTER TABLE carts ADD COLUMN tip INTEGER;")]
        _ = try open(path, more)
        #expect(try Fixtures.sqlite3(path, "SELECT max(version) FROM schema_migrations") == "2")
    }

    @Test("a failing migration is rolled back whole")
    func failingMigration() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        let broken = Fixtures.migrations + [
            Migration(version: 2, name: "0002_broken.sql", sql: "CREATE TABLE extra (x INTEGER); SELECT * FROM nowhere;")
        ]
        let error = #expect(throws: StorageError.self) { _ = try open(path, broken) }
        #expect("\(error!)".contains("0002_broken.sql"))
        #expect(try Fixtures.sqlite3(path, "SELECT count(*) FROM sqlite_master WHERE name = 'extra'") == "0")
    }

    @Test("a changed applied migration stops start-up")
    func changedMigration() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        let changed = [Migration(version: 1, name: "0001_initial.sql", sql: Fixtures.migrations[0].sql + "\n-- edited")]
        try expectRefused(path, changed, saying: "changed after it was applied")
    }

    @Test("a database from a newer version is refused, not damaged")
    func newerSchema() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite"
        let newer = Fixtures.migrations + [Migration(version: 2, name: "0002_future.sql", sql: "CREATE TABLE future (x INTEGER);")]
        _ = try open(path, newer)
        try expectRefused(path, saying: "newer pizzad")
    }

    @Test("a file that is not SQLite is refused untouched")
    func notSQLite() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite"
        try Data("these are my shopping notes, not a database\n".utf8).write(to: URL(fileURLWithPath: path))
        try expectRefused(path, saying: "not an SQLite database")
    }

    @Test("another program's SQLite file is refused untouched")
    func foreignDatabase() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite"
        _ = try Fixtures.sqlite3(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos VALUES (1, 'cat');")
        try expectRefused(path, saying: "another program")
        #expect(try Fixtures.sqlite3(path, "PRAGMA journal_mode") == "delete")
    }

    @Test("a damaged database is refused")
    func damaged() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        _ = try Fixtures.sqlite3(path, "PRAGMA wal_checkpoint(TRUNCATE)")
        // Overwrite the schema page (page 1 after the 100-byte header) with garbage.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 100)
        handle.write(Data(repeating: 0xA5, count: 3000))
        try handle.close()
        let error = #expect(throws: StorageError.self) { _ = try open(path) }
        #expect(error != nil)
    }

    @Test("a missing migrations folder and a badly named file are named errors")
    func missingFolder() throws {
        let directory = TemporaryDirectory()
        #expect(throws: StorageError.self) { try Migration.load(from: directory.path + "/nowhere") }
        try Data("SELECT 1;".utf8).write(to: URL(fileURLWithPath: directory.path + "/initial.sql"))
        let error = #expect(throws: StorageError.self) { try Migration.load(from: directory.path) }
        #expect("\(error!)".contains("NNNN_description.sql"))
    }
}
