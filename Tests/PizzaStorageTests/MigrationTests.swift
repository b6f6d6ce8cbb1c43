import Foundation
import PizzaCore
import PizzaStorage
import PizzaTesting
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
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        let rows = try Fixtures.sqlite3(
            path, "SELECT version, name, length(checksum) FROM schema_migrations ORDER BY version")
        #expect(
            rows
                == "1|0001_initial.sql|64\n2|0002_checks_without_in_lists.sql|64\n3|0003_active_orders_by_status_age.sql|64\n4|0004_replication_state.sql|64"
                + "\n5|0005_devices_and_requests.sql|64\n6|0006_outbox.sql|64\n7|0007_whole_order.sql|64\n8|0008_closing_the_day.sql|64"
        )
        #expect(try Fixtures.sqlite3(path, "PRAGMA user_version") == "8")
        // Each checksum is the file's SHA-256 as sha256sum prints it.
        for migration in Fixtures.migrations {
            let stored = try Fixtures.sqlite3(
                path, "SELECT checksum FROM schema_migrations WHERE version = \(migration.version)")
            #expect(stored == (try Fixtures.sha256(of: Fixtures.migrationsPath + "/" + migration.name)))
        }
        // Opening again applies nothing new.
        _ = try open(path)
        #expect(try Fixtures.sqlite3(path, "SELECT count(*) FROM schema_migrations") == "8")
    }

    @Test(
        "schema 2 upgrades a schema 1 database with orders: same rows, same audit chain, same CHECKs, no IN-list b-trees"
    )
    func upgradeToSchema2() async throws {
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        // Schema 1 with the rows of a real shop's orders: those of the 0.4.0 fixture, in the columns schema 1 had
        // (every change in it came over the socket, so its audit hashes are those schema 1 computed).
        let first = Array(Fixtures.migrations.prefix(1))
        do {
            let store = try SQLiteOrderStore(path: path, migrations: first)
            await store.close()
        }
        let old = try Fixtures.schema6Database(in: directory)
        _ = try Fixtures.sqlite3(
            path,
            """
            ATTACH '\(old)' AS old;
            INSERT INTO carts SELECT id, ref, customer, note, status, currency, total, created_at, updated_at
                FROM old.carts;
            INSERT INTO pizzas SELECT id, cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price
                FROM old.pizzas;
            INSERT INTO status_history SELECT id, cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid,
                reason FROM old.status_history;
            INSERT INTO audit_log SELECT seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after,
                reason, before, after, prev_hash, hash FROM old.audit_log;
            """)
        // The columns schema 1 had (schema 5 adds the device columns, NULL for every row from before).
        let dump =
            "SELECT * FROM carts; SELECT * FROM pizzas; "
            + "SELECT id, cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid, reason FROM status_history; "
            + "SELECT seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, "
            + "prev_hash, hash FROM audit_log;"
        let before = try Fixtures.sqlite3(path, dump)
        #expect(try Fixtures.sqlite3(path, "PRAGMA user_version") == "1")

        let store = try open(path, Array(Fixtures.migrations.prefix(6)))
        #expect(store.schemaVersion == 6)
        #expect(try Fixtures.sqlite3(path, dump) == before, "the rebuilt tables hold exactly the rows they held")
        #expect(try store.verifyAudit().ok)
        #expect(try Fixtures.sqlite3(path, "PRAGMA integrity_check; PRAGMA foreign_key_check") == "ok")
        let objects = "SELECT type || ' ' || name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY 1"
        #expect(
            try Fixtures.sqlite3(path, objects).split(separator: "\n") == [
                "index api_requests_by_age", "index audit_log_by_order", "index carts_active_by_status_age",
                "index carts_by_created_at",
                "index carts_by_status", "index pizzas_by_cart",
                "index status_history_by_cart", "table api_devices", "table api_requests", "table audit_log",
                "table carts", "table outbox_destinations", "table pizzas",
                "table replication_state",
                "table schema_migrations", "table status_history", "trigger audit_log_no_delete",
                "trigger audit_log_no_update",
            ])
        // Nothing points at the tables' temporary names.
        #expect(try Fixtures.sqlite3(path, "SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%_new%'") == "0")
        // The CHECKs still refuse what they refused, and the log is still append-only.
        for bad in [
            "UPDATE carts SET status = 'lost' WHERE id = 1",
            "UPDATE pizzas SET size = 'XXL' WHERE id = 1",
            "INSERT INTO status_history (cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid) VALUES (1, 'gone', 'open', 'now', 0, 'x', 1)",
            "UPDATE audit_log SET reason = 'edited' WHERE seq = 1",
            "DELETE FROM carts WHERE id = 1",
        ] {
            let result = try Fixtures.run(["sqlite3", path, "PRAGMA foreign_keys = ON; " + bad])
            #expect(result.status != 0, "\(bad) was accepted")
        }
        // Writing a row no longer builds a temporary b-tree per IN list (the reason for schema 2).
        for table in ["carts", "pizzas", "status_history", "audit_log"] {
            let plan = try Fixtures.sqlite3(path, "EXPLAIN INSERT INTO \(table) DEFAULT VALUES")
            #expect(!plan.contains("OpenEphemeral"), "\(table)")
        }
    }

    @Test("a later migration applies on the next start")
    func laterMigration() throws {
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        let more =
            Fixtures.migrations + [
                Migration(version: 9, name: "0009_tips.sql", sql: "ALTER TABLE carts ADD COLUMN tip INTEGER;")
            ]
        _ = try open(path, more)
        #expect(try Fixtures.sqlite3(path, "SELECT max(version) FROM schema_migrations") == "9")
    }

    @Test("a failing migration is rolled back whole")
    func failingMigration() throws {
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        let broken =
            Fixtures.migrations + [
                Migration(
                    version: 9, name: "0009_broken.sql", sql: "CREATE TABLE extra (x INTEGER); SELECT * FROM nowhere;")
            ]
        let error = #expect(throws: StorageError.self) { _ = try open(path, broken) }
        #expect("\(error!)".contains("0009_broken.sql"))
        #expect(try Fixtures.sqlite3(path, "SELECT count(*) FROM sqlite_master WHERE name = 'extra'") == "0")
    }

    @Test("a changed applied migration stops start-up")
    func changedMigration() throws {
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        let changed =
            [Migration(version: 1, name: "0001_initial.sql", sql: Fixtures.migrations[0].sql + "\n-- edited")]
            + Fixtures.migrations.dropFirst()
        try expectRefused(path, changed, saying: "changed after it was applied")
    }

    @Test("a database from a newer version is refused, not damaged")
    func newerSchema() throws {
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        let newer =
            Fixtures.migrations + [
                Migration(version: 9, name: "0009_future.sql", sql: "CREATE TABLE future (x INTEGER);")
            ]
        _ = try open(path, newer)
        try expectRefused(path, saying: "newer pizzad")
    }

    @Test("a file that is not SQLite is refused untouched")
    func notSQLite() throws {
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        try Data("these are my shopping notes, not a database\n".utf8).write(to: URL(fileURLWithPath: path))
        try expectRefused(path, saying: "not an SQLite database")
    }

    @Test("another program's SQLite file is refused untouched")
    func foreignDatabase() throws {
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        _ = try Fixtures.sqlite3(
            path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos VALUES (1, 'cat');")
        try expectRefused(path, saying: "another program")
        #expect(try Fixtures.sqlite3(path, "PRAGMA journal_mode") == "delete")
    }

    @Test("a damaged database is refused")
    func damaged() throws {
        let directory = try TemporaryFolder("pizzad-test")
        let path = directory.path + "/db.sqlite"
        _ = try open(path)
        _ = try Fixtures.sqlite3(path, "PRAGMA wal_checkpoint(TRUNCATE)")
        // Overwrite the schema page (page 1 after the 100-byte header) with garbage.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 100)
        handle.write(Data(repeating: 0xA5, count: 3000))
        try handle.close()
        let error = #expect(throws: StorageError.self) { _ = try open(path) }
        // Named as damaged, with its path: not "not SQLite" (the header is intact) nor any other refusal.
        guard case .damaged(let named, _) = error else {
            Issue.record("not refused as damaged: \(String(describing: error))")
            return
        }
        #expect(named == path)
    }

    @Test("a missing migrations folder and a badly named file are named errors")
    func missingFolder() throws {
        let directory = try TemporaryFolder("pizzad-test")
        #expect(throws: StorageError.self) { try Migration.load(from: directory.path + "/nowhere") }
        try Data("SELECT 1;".utf8).write(to: URL(fileURLWithPath: directory.path + "/initial.sql"))
        let error = #expect(throws: StorageError.self) { try Migration.load(from: directory.path) }
        #expect("\(error!)".contains("NNNN_description.sql"))
    }
}
