import DaemonHarness
import Foundation
import PizzaClient
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

private func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }

/// The 99th percentile: the slowest of up to 100 (a median hides a stall of every other order).
private func p99(_ values: [Duration]) -> Duration { values.sorted()[min(values.count - 1, values.count * 99 / 100)] }

/// The centre failing in every way a shop meets it, and shops or centres that are not what they claim: a suite of its
/// own beside ``ReplicationTests`` (each test starts its own PostgreSQL and pizzad, one at a time within a suite), so
/// that the two halves run side by side instead of one after the other (the one suite was a warm run's longest path).
@Suite(
    "Replication: a centre that fails, and shops and centres that are not what they say", .serialized,
    .enabled(if: postgresMissing == nil), .offThePool)
struct ReplicationFailureTests {
    @Test(
        "a centre lost while the shop has nothing to ship shows after replication.idleCheckSeconds, not before; shipping goes on when it is back"
    )
    func lostWhileQuiet() async throws {
        let centre = try Centre()
        func shop(_ id: String, idleCheck: Int) throws -> LiveDaemon {
            var environment = try centre.shop(id)
            // The limit this test is about, shortened from its shipped 30 s so that the test waits for it in seconds.
            environment["PIZZAD_REPLICATION_TIMEOUT_SECONDS"] = "2"
            environment["PIZZAD_REPLICATION_IDLE_CHECK_SECONDS"] = String(idleCheck)
            return try LiveDaemon(environment: environment)
        }
        let watchful = try shop("porto", idleCheck: 1)
        let patient = try shop("braga", idleCheck: 60)
        for daemon in [watchful, patient] {
            try await loadOrders(daemon, orders: 5)
            try await waitUntilShipped(daemon)
            let quiet = try await waitForStatus(daemon, "idle") { $0["state"] as? String == "idle" }
            #expect(quiet["connected"] as? Bool == true, "\(quiet)")
        }

        try centre.server.freeze()
        var thawed = false
        defer { if !thawed { try? centre.server.thaw() } }
        let frozen = ContinuousClock.now
        // An idle check a second, which gets no answer within timeoutSeconds (2 s).
        let lost = try await waitForStatus(watchful, "the lost centre noticed") { $0["connected"] as? Bool == false }
        let noticed = ContinuousClock.now - frozen
        #expect(noticed < .seconds(8), "noticed after \(noticed): \(lost)")
        #expect(lost["lastErrorKind"] as? String == "timed_out", "\(lost)")
        #expect((lost["lastError"] as? String ?? "").contains("within 2 s"), "\(lost)")
        // The other shop checks once a minute: it has not asked yet, which is what the setting trades for fewer
        // round trips at a chain's centre. (At the default 5 s it would have asked and given up within 7 s.)
        try await Task.sleep(until: frozen + .seconds(8), clock: .continuous)
        let unaware = try replicationStatus(patient)
        #expect(unaware["connected"] as? Bool == true && unaware["lastErrorKind"] as? String == nil, "\(unaware)")

        try centre.server.thaw()
        thawed = true
        for daemon in [watchful, patient] {
            try await loadOrders(daemon, orders: 5)
            try await waitUntilShipped(daemon, timeout: 90)
        }
        #expect(try centre.entries("porto") == (try localEntries(watchful)))
        #expect(try centre.entries("braga") == (try localEntries(patient)))
        #expect(try watchful.stop() == 0)
        #expect(try patient.stop() == 0)
    }

    @Test(
        "the centre's disk full: the batch is refused whole and said once, the kitchen goes on, everything arrives when space returns",
        .enabled(if: canMount))
    func centralDiskFull() async throws {
        let centre = try Centre()
        let shop = try LiveDaemon(environment: try centre.shop("nantes", batchSize: 20))
        try await loadOrders(shop, orders: 10)
        try await waitUntilShipped(shop)

        // order_events moves to a tablespace on a 16 MiB tmpfs, which a filler then takes to the last few pages.
        let tiny = centre.folder + "/tiny"
        try FileManager.default.createDirectory(atPath: tiny, withIntermediateDirectories: true)
        let mounted = try run("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", tiny])
        try #require(mounted.status == 0, "\(mounted)")
        defer { _ = try? run("umount", ["-l", tiny]) }
        _ = try run("chown", ["postgres:postgres", tiny])
        try centre.server.psql("CREATE TABLESPACE tiny LOCATION '\(tiny)'")
        // Each of order_events' partitions (a partitioned table's own tablespace is only where new ones go).
        try centre.sql(
            """
            DO $$ DECLARE p regclass; BEGIN
                FOR p IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'order_events'::regclass LOOP
                    EXECUTE format('ALTER TABLE %s SET TABLESPACE tiny', p);
                END LOOP;
            END $$
            """)
        let filler = tiny + "/filler"
        _ = try run("dd", ["if=/dev/zero", "of=\(filler)", "bs=64k", "count=1000"])  // stops at the end of the disk
        _ = try run("truncate", ["-s", "-96K", filler])

        let latencies = try await loadOrders(shop, orders: 60)
        let status = try await waitForStatus(shop, "a refused batch") { $0["lastErrorKind"] as? String == "central" }
        #expect((status["lastError"] as? String ?? "").contains("No space left on device"), "\(status)")
        #expect((status["backlogEvents"] as? Int ?? 0) > 0, "\(status)")
        #expect(p99(latencies) < .milliseconds(500), "an order stalled with the centre's disk full: \(p99(latencies))")
        // Nothing half there: the centre holds a prefix of the shop's entries, no gap.
        let held = try centre.entries("nantes")
        #expect(
            (try localEntries(shop)).hasPrefix(held), "the centre holds something the shop did not write in that order")

        try FileManager.default.removeItem(atPath: filler)
        try await waitUntilShipped(shop, timeout: 90)
        #expect(try centre.entries("nantes") == (try localEntries(shop)))
        // Said once per distinct error, not once per retry (the heap's and its TOAST's files are two).
        // Each names the file it could not extend (the shop's partition, its TOAST, an index), so there may be a few;
        // none is said twice.
        let said = shop.output.split(separator: "\n").filter { $0.contains("No space left on device") }.compactMap {
            line -> Substring? in line.range(of: "replication: ").map { line[$0.lowerBound...] }
        }
        #expect(!said.isEmpty && Set(said).count == said.count, "\(said.count) lines:\n\(shop.output.suffix(3000))")
        #expect(try shop.stop() == 0)
        try centre.server.stop(mode: "immediate")
    }

    @Test(
        "a wrong password, a database that is not ours, a bad replication setting: clear errors, nothing written, orders still taken"
    )
    func refusals() async throws {
        let centre = try Centre()
        let wrong = try LiveDaemon(environment: try centre.shop("oslo", password: "not-the-password"))
        try await loadOrders(wrong, orders: 5)
        let status = try await waitForStatus(wrong, "a refused login") { $0["lastError"] is String }
        #expect((status["lastErrorKind"] as? String) == "authentication", "\(status)")
        #expect((status["lastError"] as? String ?? "").contains("refused the login"), "\(status)")
        #expect(try centre.sql("SELECT count(*) FROM order_events") == "0")
        #expect(try wrong.stop() == 0)

        // A database with tables of the central schema's names that pizzad did not make, even for its owner.
        try centre.server.psql("CREATE DATABASE foreign_app OWNER central_owner")
        try centre.server.psql(
            "CREATE TABLE orders (id serial PRIMARY KEY, item text); INSERT INTO orders (item) VALUES ('kept'); CREATE TABLE shops (name text); ALTER TABLE orders OWNER TO central_owner",
            database: "foreign_app")
        var foreign = centre.environment(
            shop: "oslo", user: "central_owner", password: "owner-secret", database: "foreign_app")
        let migrate = try run(Binaries.pizzad, ["migrate-central"], environment: foreign, directory: centre.folder)
        #expect(migrate.status == 1)
        #expect(migrate.stderr.contains("already holds orders, shops that pizzad did not create"), "\(migrate.stderr)")
        foreign["PIZZAD_LOG_LEVEL"] = "info"
        let intruder = try LiveDaemon(environment: foreign)
        try await loadOrders(intruder, orders: 3)
        let refused = try await waitForStatus(intruder, "the foreign database refused") {
            $0["state"] as? String == "stopped"
        }
        #expect((refused["lastErrorKind"] as? String) == "foreign_database", "\(refused)")
        #expect(try centre.server.psql("SELECT string_agg(item, ',') FROM orders", database: "foreign_app") == "kept")
        #expect(
            try centre.server.psql(
                "SELECT to_regclass('order_events') IS NULL AND to_regclass('pizzad_central_migrations') IS NULL",
                database: "foreign_app") == "t")
        #expect(try intruder.stop() == 0)

        // Settings are checked at start: a host with no shop id, a shop id the centre would refuse.
        for (variables, message) in [
            (
                [
                    "PIZZAD_REPLICATION_POSTGRES_HOST": "127.0.0.1", "PIZZAD_REPLICATION_POSTGRES_DATABASE": "c",
                    "PIZZAD_REPLICATION_POSTGRES_USER": "u",
                ],
                "key 'replication.shopId': is required when replication.postgres.host is set"
            ),
            (
                [
                    "PIZZAD_REPLICATION_POSTGRES_HOST": "127.0.0.1", "PIZZAD_REPLICATION_POSTGRES_DATABASE": "c",
                    "PIZZAD_REPLICATION_POSTGRES_USER": "u",
                    "PIZZAD_REPLICATION_SHOP_ID": "Berlin Mitte",
                ], "'Berlin Mitte' is not allowed"
            ),
            (["PIZZAD_REPLICATION_SHOP_ID": "berlin"], "key 'replication.postgres.host': is missing"),
            (
                [
                    "PIZZAD_REPLICATION_POSTGRES_HOST": "127.0.0.1", "PIZZAD_REPLICATION_POSTGRES_DATABASE": "c",
                    "PIZZAD_REPLICATION_POSTGRES_USER": "u",
                    "PIZZAD_REPLICATION_SHOP_ID": "berlin", "PIZZAD_REPLICATION_TIMEOUT_SECONDS": "0",
                ], "a whole number of seconds from 1 to 600"
            ),
        ] {
            for command in ["--check-config", "--migrate-central"] {
                let checked = try run(Binaries.pizzad, [command], environment: variables, directory: centre.folder)
                #expect(checked.status == 78, "\(command) \(variables)")
                #expect(checked.stderr.contains(message), "\(command): \(checked.stderr)")
            }
        }
    }

    @Test(
        "a centre at schema 1 holding orders in the old nested item form: the migrations flatten them and keep totals, an old-form entry still arriving is flattened and totalled, and shops ship on"
    )
    func upgradeToWireFormItems() async throws {
        let centre = try Centre(migrate: false)
        // Schema 1 only, as the previous pizzad left the centre.
        let old = try centre.migrations(upTo: 1)
        var owner = centre.environment(shop: "head-office", user: "central_owner", password: "owner-secret")
        owner["PIZZAD_MIGRATIONS"] = old
        let first = try run(Binaries.pizzad, ["migrate-central"], environment: owner, directory: centre.folder)
        #expect(first.status == 0 && first.stdout.contains("central schema at version 1"), "\(first)")
        try centre.sql(
            """
            INSERT INTO orders (shop_id, order_id, status, currency, total, items, created_at, updated_at, last_seq)
            VALUES ('lyon', 1, 'placed', 'EUR', 2300, '[{"id": 1, "pizza": {"kind": "chicken", "size": "L",
                "crust": "thin", "chiliSauce": true, "ketchup": false, "extras": ["olives"], "quantity": 2,
                "unitPrice": 1150}}]', now(), now(), 1)
            """)

        owner["PIZZAD_MIGRATIONS"] = nil
        let second = try run(Binaries.pizzad, ["migrate-central"], environment: owner, directory: centre.folder)
        let latest = try Centre.latestVersion()
        #expect(second.status == 0 && second.stdout.contains("central schema at version \(latest)"), "\(second)")
        #expect(
            try centre.sql("SELECT items::text || '|' || total FROM orders WHERE shop_id = 'lyon'")
                == #"[{"id": 1, "kind": "chicken", "size": "L", "crust": "thin", "price": 2300, "extras": ["olives"], "ketchup": false, "quantity": 2, "unitPrice": 1150, "chiliSauce": true}]|2300"#
        )

        // An entry still in the old nested form (a shop's history from before pizzad 0.2) arriving now: its items
        // are flattened and, having no "total" of its own, it is totalled from them.
        let zeros = String(repeating: "0", count: 64)
        let entry = """
            [{"seq": 1, "at": "2026-11-01T10:00:00Z", "actor": {"uid": 0, "name": "root", "pid": 1}, "action": "created",
              "order": 7, "status": "placed", "reason": null, "before": null, "prevHash": "\(zeros)",
              "hash": "\(String(repeating: "a", count: 64))",
              "after": {"id": 7, "ref": null, "customer": "old", "note": null, "status": "placed", "currency": "EUR",
                "items": [{"id": 1, "pizza": {"kind": "chicken", "size": "L", "crust": "thin", "chiliSauce": true,
                  "ketchup": false, "extras": [], "quantity": 2, "unitPrice": 1150}}],
                "createdAt": "2026-11-01T10:00:00Z", "updatedAt": "2026-11-01T10:00:00Z", "history": []}}]
            """
        try centre.sql("SELECT pizzad_ingest('legacy', repeat('k', 32), '\(entry)'::jsonb)")
        #expect(
            try centre.sql("SELECT items::text || '|' || total FROM orders WHERE shop_id = 'legacy'")
                == #"[{"id": 1, "kind": "chicken", "size": "L", "crust": "thin", "price": 2300, "extras": [], "ketchup": false, "quantity": 2, "unitPrice": 1150, "chiliSauce": true}]|2300"#
        )

        // A shop ships into the upgraded centre: items in the wire form, totals as the shop has them.
        let shop = try LiveDaemon(environment: try centre.shop("nice"))
        try await loadOrders(shop, orders: 6)
        try await waitUntilShipped(shop)
        #expect(
            try centre.sql("SELECT order_id || '|' || total FROM orders WHERE shop_id = 'nice' ORDER BY order_id")
                == (try sqlite3(shop.database, "SELECT id || '|' || total FROM carts ORDER BY id")))
        #expect(try centre.sql("SELECT count(*) FROM orders, jsonb_array_elements(items) i WHERE i ? 'pizza'") == "0")
        #expect(try shop.stop() == 0)
    }

    @Test(
        "a centre not yet migrated and a shop role that may not migrate it: schema_behind, then shipping once the owner migrates"
    )
    func schemaBehind() async throws {
        let centre = try Centre(migrate: false)
        try centre.server.psql("CREATE ROLE shop_graz LOGIN PASSWORD 'shop_graz-secret'")
        let shop = try LiveDaemon(
            environment: centre.environment(shop: "graz", user: "shop_graz", password: "shop_graz-secret"))
        try await loadOrders(shop, orders: 5)
        let status = try await waitForStatus(shop, "schema_behind") {
            $0["lastErrorKind"] as? String == "schema_behind"
        }
        #expect((status["lastError"] as? String ?? "").contains("pizzad migrate-central"), "\(status)")
        #expect(try centre.sql("SELECT to_regclass('order_events') IS NULL") == "t", "the shop's role created tables")

        let migrated = try run(
            Binaries.pizzad, ["migrate-central"],
            environment: centre.environment(shop: "head-office", user: "central_owner", password: "owner-secret"),
            directory: centre.folder)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        try centre.server.psql("GRANT pizzad_shop TO shop_graz")
        try await waitUntilShipped(shop, timeout: 90)
        #expect(try centre.entries("graz") == (try localEntries(shop)))
        #expect(shop.output.contains("replication connected again"), "\(shop.output.suffix(2000))")
        #expect(try shop.stop() == 0)
    }

    @Test(
        "a shop restored from an older backup reuses sequence numbers: shipping stops with diverged and nothing central changes"
    )
    func restoredFromOldBackup() async throws {
        let centre = try Centre()
        let environment = try centre.shop("madrid")
        let shopFolder = try TemporaryFolder("pizzad-it")
        defer { shopFolder.remove() }
        let directory = shopFolder.path
        let shop = try LiveDaemon(environment: environment, directory: directory)
        try await loadOrders(shop, orders: 10)
        try await waitUntilShipped(shop)
        let backup = directory + "/old-copy.sqlite"
        #expect(try shop.pizzactl(["db", "backup", backup]).status == 0)
        try await loadOrders(shop, orders: 10)
        try await waitUntilShipped(shop)
        #expect(try shop.stop() == 0)
        let centralBefore = try centre.entries("madrid")

        // The shop's disk is replaced by the older copy, and the kitchen goes on: new changes, old numbers.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: shop.database + suffix) }
        try FileManager.default.copyItem(atPath: backup, toPath: shop.database)
        let restored = try LiveDaemon(environment: environment, directory: directory)
        try await loadOrders(restored, orders: 3)
        let status = try await waitForStatus(restored, "diverged") { $0["state"] as? String == "stopped" }
        #expect((status["lastErrorKind"] as? String) == "diverged", "\(status)")
        #expect((status["lastError"] as? String ?? "").contains("nothing central was overwritten"), "\(status)")
        #expect(try centre.entries("madrid") == centralBefore)
        let verify = try restored.pizzactl(["--timeout", "60", "replication", "verify"])
        #expect(verify.status == 1 && verify.stderr.contains("diverged"), "\(verify.stdout)\(verify.stderr)")
        // The kitchen is not affected.
        try await loadOrders(restored, orders: 3)
        #expect(try restored.stop() == 0)
        try? FileManager.default.removeItem(atPath: directory)
    }

    // The two timed checks last: each waits while the booted-systemd test builds its packages and boots.
    @Test(
        "PostgreSQL stopped under load: the kitchen's latency does not change, errors say so once, and everything arrives when it is back"
    )
    func centreDown() async throws {
        let centre = try Centre()
        // A process of its own: what is timed is the kitchen's latency beside a niced shipper whose connect to the
        // stopped centre must be refused, not time out; in the test's process, under a fresh clone's whole load
        // (debootstrap, the package build), the shipper's connect timed out instead.
        let shop = try PizzadProcess(environment: try centre.shop("lyon"))
        let (up, down) = try await withMachine(heavy: false) {
            try await loadOrders(shop, clients: 1, orders: 40)  // warm up
            let up = try await loadOrders(shop, clients: 1, orders: 150)
            try centre.server.stop()
            let down = try await loadOrders(shop, clients: 1, orders: 150)
            return (up, down)
        }
        print(
            "order.create median and p99 with the centre up: \(median(up)), \(p99(up)); down: \(median(down)), \(p99(down))"
        )
        #expect(median(down) < median(up) * 3 + .milliseconds(5), "the kitchen slowed while the centre was down")
        // The tail too: an order that waited for the shipper's reconnect would show here, not in the median.
        #expect(p99(down) < p99(up) * 3 + .milliseconds(50), "orders stalled while the centre was down: \(p99(down))")
        let status = try await waitForStatus(shop, "an error while PostgreSQL is down") { $0["lastError"] is String }
        // Once a fresh clone's CI run saw the batch in flight when PostgreSQL stopped time out after 30 s instead
        // (timed_out, 2026-12-07): the shipper's log says what it saw, and PostgreSQL's when it stopped.
        #expect(
            (status["lastErrorKind"] as? String) == "unreachable",
            "\(status)\npizzad:\n\(shop.output.suffix(3000))\nPostgreSQL:\n\(centre.server.log.suffix(3000))")
        #expect((status["backlogEvents"] as? Int ?? 0) > 0, "\(status)")
        let text = try shop.pizzactl(["replication", "status"]).stdout
        #expect(text.contains("cannot reach PostgreSQL at shop_lyon@127.0.0.1"), "\(text)")
        try await loadOrders(shop, clients: 2, orders: 60)
        try centre.server.start()
        try await waitUntilShipped(shop, timeout: 90)
        #expect(try centre.entries("lyon") == (try localEntries(shop)))
        // Logged once per distinct error, not once per attempt.
        let lines = shop.output.split(separator: "\n").filter { $0.contains("replication: cannot reach PostgreSQL") }
        #expect((1...3).contains(lines.count), "\(lines.count) log lines:\n\(lines.prefix(5).joined(separator: "\n"))")
        #expect(shop.output.contains("replication connected again"), "\(shop.output.suffix(2000))")
        #expect(try shop.stop() == 0)
    }

    @Test(
        "a stalled centre (PostgreSQL frozen, as a partition looks): requests give up after replication.timeoutSeconds, the kitchen goes on, everything arrives after it thaws"
    )
    func stalledCentre() async throws {
        let centre = try Centre()
        var environment = try centre.shop("oslo")
        // The limit this test is about, shortened from its shipped 30 s so that the test waits for it in seconds.
        environment["PIZZAD_REPLICATION_TIMEOUT_SECONDS"] = "2"
        let shop = try LiveDaemon(environment: environment)
        try await loadOrders(shop, orders: 10)
        try await waitUntilShipped(shop)

        try centre.server.freeze()
        var thawed = false
        defer { if !thawed { try? centre.server.thaw() } }
        let started = ContinuousClock.now
        let frozenLatencies = try await withMachine(heavy: false) { try await loadOrders(shop, orders: 40) }
        let status = try await waitForStatus(shop, "a timeout") { $0["lastErrorKind"] as? String == "timed_out" }
        #expect(
            (status["lastError"] as? String ?? "").contains("got no answer from PostgreSQL within 2 s"), "\(status)")
        // Reconnecting finds the server just as stalled: the connection (or its start-up handshake) gives up in
        // time too, nothing hangs, and the retries go on.
        try await Task.sleep(for: .seconds(5))
        let later = try replicationStatus(shop)
        #expect(later["connected"] as? Bool == false, "\(later)")
        #expect(["timed_out", "unreachable"].contains(later["lastErrorKind"] as? String ?? ""), "\(later)")
        #expect((later["lastError"] as? String ?? "").contains("within 2 s"), "\(later)")
        #expect((later["backlogEvents"] as? Int ?? 0) > 0, "\(later)")
        #expect(p99(frozenLatencies) < .milliseconds(500), "an order stalled with the centre: \(p99(frozenLatencies))")
        let elapsed = ContinuousClock.now - started
        try await loadOrders(shop, orders: 10)

        try centre.server.thaw()
        thawed = true
        try await waitUntilShipped(shop, timeout: 90)
        #expect(try centre.entries("oslo") == (try localEntries(shop)))
        // Each distinct error is logged once, not once per retry (the stall lasted \(elapsed)).
        let timeouts = shop.output.components(separatedBy: "got no answer from PostgreSQL").count - 1
        #expect((1...3).contains(timeouts), "\(timeouts) timeout lines over \(elapsed):\n\(shop.output.suffix(3000))")
        #expect(try shop.stop() == 0)
    }
}
