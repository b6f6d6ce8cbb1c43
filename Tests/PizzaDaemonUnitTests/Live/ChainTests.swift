import DaemonHarness
import Foundation
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

let pgbouncerMissing: String? = {
    let reason = PgBouncerServer.unavailableReason
    if let reason { print("PgBouncer tests skipped: \(reason)") }
    return reason
}()

/// A centre with a real PgBouncer in front, in transaction pooling, as a chain runs it: every shop logs in to
/// PgBouncer as its own role, and PgBouncer logs in to PostgreSQL as one pooled role (central schema 6).
private struct ChainCentre {
    let centre: Centre
    let bouncer: PgBouncerServer

    /// `serverConnections` caps PostgreSQL's connections for the database: at 1, every shop's transactions take
    /// turns on the one connection, so no transaction can count on the session of the one before it.
    init(serverConnections: Int = 1) throws {
        centre = try Centre()
        try centre.server.psql(
            "CREATE ROLE pizzad_pool LOGIN PASSWORD 'pool-secret' IN ROLE pizzad_shop, pizzad_pooled")
        bouncer = try PgBouncerServer(
            server: centre.server, parent: centre.folder, poolSize: serverConnections,
            serverConnections: serverConnections, pooledRole: ("pizzad_pool", "pool-secret"))
    }

    /// The environment of a pizzad that ships as `shop` through PgBouncer.
    func shop(_ shop: String) throws -> [String: String] {
        var environment = try centre.shop(shop)
        let role = environment["PIZZAD_REPLICATION_POSTGRES_USER"] ?? ""
        try bouncer.addUser(role, password: role + "-secret")
        environment["PIZZAD_REPLICATION_POSTGRES_PORT"] = String(bouncer.port)
        return environment
    }

    /// psql as `role` (password `<role>-secret`), through PgBouncer or straight to PostgreSQL: the output, or the
    /// error PostgreSQL gave.
    func psql(as role: String, direct: Bool = false, _ sql: String) throws -> (status: Int32, output: String) {
        let port = direct ? centre.server.port : bouncer.port
        return try ChildProcess.run(
            PostgresServer.psqlPath,
            [
                "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", String(port), "-U", role, "-d", "central", "-c", sql,
            ],
            environment: ["PGPASSWORD": role + "-secret"], timeout: 30)
    }
}

@Suite(
    "A chain's centre: shops ship through PgBouncer in transaction pooling, each shop's rows its own", .serialized,
    .enabled(if: pgbouncerMissing == nil), .offThePool)
struct ChainTests {
    @Test(
        "two shops ship through PgBouncer (one server connection for both, transaction pooling) exactly once; PgBouncer gone with a backlog and back heals"
    )
    func throughPgBouncer() async throws {
        let chain = try ChainCentre()
        let berlin = try LiveDaemon(environment: try chain.shop("berlin"))
        let paris = try LiveDaemon(environment: try chain.shop("paris"))
        async let a: Void = { try await loadOrders(berlin, orders: 300) }()
        async let b: Void = { try await loadOrders(paris, orders: 300) }()
        // Both have shipped through PgBouncer (the loads may still run, or may have shipped whole: how fast is the
        // machine's; a status poll cannot catch "still under way" for certain).
        for daemon in [berlin, paris] {
            _ = try await waitForStatus(daemon, timeout: 60, "shipping begun") { ($0["shippedSeq"] as? Int ?? 0) > 0 }
        }
        try chain.bouncer.stop()
        // While it is gone, the kitchens go on and the backlog waits in audit_log: each has one for certain.
        _ = try await waitForStatus(berlin, timeout: 30, "the shipper noticing PgBouncer gone") {
            $0["connected"] as? Bool == false
        }
        for daemon in [berlin, paris] {
            #expect(try daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
            _ = try await waitForStatus(daemon, timeout: 30, "a backlog while PgBouncer is gone") {
                ($0["backlogEvents"] as? Int ?? 0) > 0
            }
        }
        // PostgreSQL's sessions sampled while both ship: PgBouncer's pooled role, one connection at a time, and
        // never a shop's own role (which would mean a shop went around PgBouncer, or PgBouncer did not pool). On a
        // thread of its own (psql is a blocking child), started before PgBouncer is back so that it sees the
        // backlog ship, and going until both have shipped everything.
        let sampled = Locked((pooled: 0, most: 0, shops: 0, samples: 0))
        let sampling = Locked(true)
        let centre = chain.centre
        let sampler = Thread {
            while sampling.value {
                let row =
                    (try? centre.sql(
                        """
                        SELECT count(*) FILTER (WHERE usename = 'pizzad_pool') || '|' ||
                               count(*) FILTER (WHERE usename LIKE 'shop_%')
                        FROM pg_stat_activity WHERE datname = 'central'
                        """
                    ))?.split(separator: "|").compactMap { Int($0) } ?? []
                if row.count == 2 {
                    sampled.withLock { sessions in
                        sessions.samples += 1
                        if row[0] > 0 { sessions.pooled += 1 }
                        sessions.most = max(sessions.most, row[0])
                        sessions.shops += row[1]
                    }
                }
                usleep(20_000)
            }
        }
        sampler.start()
        try chain.bouncer.start()
        _ = try await (a, b)
        try await waitUntilShipped(berlin, timeout: 120)
        try await waitUntilShipped(paris, timeout: 120)
        sampling.withLock { $0 = false }
        let sessions = sampled.value
        print("PostgreSQL's sessions during shipping: \(sessions)")
        #expect(sessions.samples > 0, "PostgreSQL's sessions were never sampled")
        #expect(sessions.pooled > 0, "no sample saw PgBouncer's pooled session while shipping: \(sessions)")
        #expect(sessions.most == 1, "PgBouncer held more than its one server connection: \(sessions)")
        #expect(sessions.shops == 0, "a shop's own role had a session in PostgreSQL: \(sessions)")
        for (shop, daemon) in [("berlin", berlin), ("paris", paris)] {
            let local = try localEntries(daemon)
            #expect(local.split(separator: "\n").count > 500)
            #expect(try chain.centre.entries(shop) == local, "\(shop): central entries differ from the audit log")
            #expect(
                try chain.centre.sql(
                    "SELECT count(*) = max(seq) AND min(seq) = 1 FROM order_events WHERE shop_id = '\(shop)'") == "t")
            let verify = try daemon.pizzactl(["replication", "verify"])
            #expect(verify.status == 0 && verify.stdout.contains("replication ok"), "\(verify.stdout)\(verify.stderr)")
        }
        // They were cut off and came back: the shipper said so, by name.
        #expect(berlin.output.contains("replication connected again"), "\(berlin.output.suffix(2000))")
        #expect(try berlin.stop() == 0)
        #expect(try paris.stop() == 0)
    }

    @Test(
        "one shop's credentials cannot write, read or claim another shop's rows, directly or through PgBouncer; the centre names the role"
    )
    func eachShopItsOwn() async throws {
        let chain = try ChainCentre(serverConnections: 4)
        let berlin = try LiveDaemon(environment: try chain.shop("berlin"))
        _ = try chain.shop("paris")
        try await loadOrders(berlin, orders: 20)
        try await waitUntilShipped(berlin)
        let before = try chain.centre.entries("berlin")
        let key = try chain.centre.sql("SELECT shop_key FROM shops WHERE shop_id = 'berlin'")
        let entry = try chain.centre.sql(
            """
            SELECT jsonb_build_array(jsonb_build_object('seq', seq + 1, 'at', at, 'actor', jsonb_build_object('uid', 0,
                'name', 'x', 'pid', 1), 'action', 'cancel', 'order', order_id, 'status', 'cancelled', 'reason', 'forged',
                'before', after, 'after', after, 'prevHash', hash, 'hash', repeat('f', 64)))::text
            FROM order_events WHERE shop_id = 'berlin' ORDER BY seq DESC LIMIT 1
            """)
        // Through the pool, where PostgreSQL cannot tell the shops apart: without Berlin's key Paris cannot ship as
        // Berlin, whatever role it names, and the key and the history are not handed out to a pooled session.
        for role in ["shop_berlin", "shop_paris"] {
            let pooled = try chain.psql(
                as: "shop_paris", "SELECT pizzad_ingest('berlin', repeat('k', 32), '\(entry)'::jsonb, '\(role)')")
            #expect(pooled.status != 0 && pooled.output.contains("taken by another pizzad database"), "\(pooled)")
        }
        let pooledState = try chain.psql(as: "shop_paris", "SELECT pizzad_shop_state('berlin')")
        #expect(
            pooledState.status != 0 && pooledState.output.contains("restoring shop berlin needs the shop's own role"),
            "\(pooledState)")
        let pooledHistory = try chain.psql(as: "shop_paris", "SELECT count(*) FROM pizzad_history('berlin', 0, 9)")
        #expect(pooledHistory.status != 0 && pooledHistory.output.contains("is pooled"), "\(pooledHistory)")
        // On its own connection, Paris's role, even knowing Berlin's shop key, cannot append to Berlin's history
        // or read it.
        let ingest = try chain.psql(
            as: "shop_paris", direct: true, "SELECT pizzad_ingest('berlin', '\(key)', '\(entry)'::jsonb, 'shop_paris')")
        #expect(ingest.status != 0 && ingest.output.contains("ships as role shop_berlin, not shop_paris"), "\(ingest)")
        let old = try chain.psql(
            as: "shop_paris", direct: true, "SELECT pizzad_ingest('berlin', '\(key)', '\(entry)'::jsonb)")
        #expect(old.status != 0 && old.output.contains("ships as role shop_berlin, not shop_paris"), "\(old)")
        let state = try chain.psql(as: "shop_paris", direct: true, "SELECT pizzad_shop_state('berlin')")
        #expect(state.status != 0 && state.output.contains("not shop_paris"), "\(state)")
        let history = try chain.psql(
            as: "shop_paris", direct: true, "SELECT count(*) FROM pizzad_history('berlin', 0, 100)")
        #expect(history.status != 0 && history.output.contains("not registered to role shop_paris"), "\(history)")
        // The tables themselves are closed to every shop role and to the pooled one.
        for (role, direct) in [("shop_paris", true), ("shop_paris", false)] {
            for sql in [
                "SELECT count(*) FROM order_events", "DELETE FROM order_events WHERE shop_id = 'berlin'",
                "UPDATE shops SET role_name = 'shop_paris' WHERE shop_id = 'berlin'",
            ] {
                let refused = try chain.psql(as: role, direct: direct, sql)
                #expect(refused.status != 0 && refused.output.contains("permission denied"), "\(sql): \(refused)")
            }
        }
        // Restoring Berlin through the pool is refused by name; through a connection of its own role it works.
        var berlinEnvironment = try chain.shop("berlin")
        let target = chain.centre.folder + "/restored-berlin.sqlite"
        let pooledRestore = try run(
            Binaries.pizzad, ["restore", "--from-central", "--database", target, "--dry-run"],
            environment: PizzadEnvironment.scrubbed(overriding: berlinEnvironment), timeout: 120)
        #expect(
            pooledRestore.status != 0 && pooledRestore.stderr.contains("needs the shop's own role"), "\(pooledRestore)")
        berlinEnvironment["PIZZAD_REPLICATION_POSTGRES_PORT"] = String(chain.centre.server.port)
        let directRestore = try run(
            Binaries.pizzad, ["restore", "--from-central", "--database", target, "--dry-run"],
            environment: PizzadEnvironment.scrubbed(overriding: berlinEnvironment), timeout: 120)
        #expect(directRestore.status == 0, "\(directRestore)")
        // A shop that sets its role after connecting is still itself: SET ROLE needs membership, which no shop has.
        let setRole = try chain.psql(as: "shop_paris", direct: true, "SET ROLE shop_berlin")
        #expect(setRole.status != 0 && setRole.output.contains("permission denied"), "\(setRole)")
        #expect(try chain.centre.entries("berlin") == before)
        #expect(try berlin.stop() == 0)
    }

    @Test(
        "a centre at schema 4 is partitioned while two shops keep shipping: every row kept, the shops back up and catch up exactly once"
    )
    func partitionWhileShipping() async throws {
        let centre = try Centre(migrate: false)
        let v4 = try centre.migrations(upTo: 4)
        var owner = centre.environment(shop: "head-office", user: "central_owner", password: "owner-secret")
        owner["PIZZAD_MIGRATIONS"] = v4
        let first = try run(Binaries.pizzad, ["migrate-central"], environment: owner, directory: centre.folder)
        #expect(first.status == 0 && first.stdout.contains("central schema at version 4"), "\(first)")
        // The shops' pizzad knows schema 4 only, as it did before the head office upgraded.
        var lyon = try centre.shop("lyon")
        var nice = try centre.shop("nice")
        lyon["PIZZAD_MIGRATIONS"] = v4
        nice["PIZZAD_MIGRATIONS"] = v4
        let shops = [("lyon", try LiveDaemon(environment: lyon)), ("nice", try LiveDaemon(environment: nice))]
        try await loadOrders(shops[0].1, orders: 100)
        try await loadOrders(shops[1].1, orders: 100)
        for (_, daemon) in shops { try await waitUntilShipped(daemon) }
        // What is there now, fingerprinted row by row (every column schema 4 has, the receive time included; later
        // schemas add columns, NULL for these rows).
        let fingerprint =
            "SELECT count(*) || ':' || md5(string_agg(ROW(e.shop_id, e.seq, e.order_id, e.action, e.status_after, e.at, "
            + "e.actor_uid, e.actor_name, e.actor_pid, e.reason, e.before, e.after, e.prev_hash, e.hash, "
            + "e.received_at)::text, '' ORDER BY shop_id, seq)) FROM order_events e WHERE seq <= "
        let cursors = try shops.map { shop, _ in
            try centre.sql("SELECT cursor_seq FROM shops WHERE shop_id = '\(shop)'")
        }
        let before = try zip(shops, cursors).map { shop, cursor in
            try centre.sql(fingerprint + cursor + " AND shop_id = '\(shop.0)'")
        }
        #expect(try centre.sql("SELECT relkind FROM pg_class WHERE relname = 'order_events'") == "r")

        // A chain's history besides theirs: 400,000 events of another 1,000 shops, so that the migration takes
        // longer than the owner's 1 s request limit (which holds for a batch, not for a migration).
        try centre.server.psql(
            """
            INSERT INTO order_events (shop_id, seq, order_id, action, status_after, at, actor_uid, actor_name, actor_pid,
                                      after, prev_hash, hash)
            SELECT 'old-' || (n % 1000), n / 1000 + 1, n / 1000 + 1, 'create', 'placed', now(), 0, 'till', 1, '{}',
                   repeat('0', 64), repeat('1', 64)
            FROM generate_series(0, 399999) AS n
            """, database: "central")
        owner["PIZZAD_REPLICATION_TIMEOUT_SECONDS"] = "1"
        // The head office migrates while both kitchens take orders and ship.
        async let a: Void = { try await loadOrders(shops[0].1, orders: 400) }()
        async let b: Void = { try await loadOrders(shops[1].1, orders: 400) }()
        try await Task.sleep(for: .milliseconds(300))
        owner["PIZZAD_MIGRATIONS"] = nil
        let second = try run(Binaries.pizzad, ["migrate-central"], environment: owner, directory: centre.folder)
        let latest = try Centre.latestVersion()
        #expect(second.status == 0 && second.stdout.contains("central schema at version \(latest)"), "\(second)")
        #expect(try centre.sql("SELECT count(*) FROM order_events WHERE shop_id LIKE 'old-%'") == "400000")
        _ = try await (a, b)
        for (shop, daemon) in shops {
            try await waitUntilShipped(daemon, timeout: 120)
            #expect(try centre.entries(shop) == localEntries(daemon), "\(shop): central entries differ")
            #expect(
                try centre.sql(
                    "SELECT count(*) = max(seq) AND min(seq) = 1 FROM order_events WHERE shop_id = '\(shop)'") == "t")
            let verify = try daemon.pizzactl(["replication", "verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        }
        let after = try zip(shops, cursors).map { shop, cursor in
            try centre.sql(fingerprint + cursor + " AND shop_id = '\(shop.0)'")
        }
        #expect(after == before)
        // A shop whose pizzad knows only schema 4, restarted after the upgrade, ships on into the newest schema.
        let lyonFolder = shops[0].1.directory
        #expect(try shops[0].1.stop() == 0)
        let restarted = try LiveDaemon(environment: lyon, directory: lyonFolder)
        try await loadOrders(restarted, orders: 20)
        try await waitUntilShipped(restarted)
        #expect(try centre.entries("lyon") == localEntries(restarted))
        #expect(restarted.output.contains("the central schema is newer than this pizzad's"), "\(restarted.output)")
        #expect(try restarted.stop() == 0)
        #expect(try centre.sql("SELECT relkind FROM pg_class WHERE relname = 'order_events'") == "p")
        #expect(try centre.sql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'order_events'::regclass") == "16")
        #expect(try centre.sql("SELECT count(*) FROM pg_class WHERE relname = 'order_events_unpartitioned'") == "0")
        // Each shop's rows sit in one partition.
        #expect(
            try centre.sql(
                "SELECT bool_and(n = 1) FROM (SELECT count(DISTINCT tableoid) AS n FROM order_events GROUP BY shop_id) p"
            )
                == "t")
        #expect(try shops[1].1.stop() == 0)
    }

    @Test(
        "head office's queries are index-only scans and a shop's reads touch one partition, over a million events of 1,000 shops (EXPLAIN)"
    )
    func headOfficePlans() throws {
        let centre = try Centre()
        // A million events and 200,000 orders of 1,000 shops over 60 days, as a chain's centre holds them.
        try centre.server.psql(
            """
            INSERT INTO order_events (shop_id, seq, order_id, action, status_after, at, actor_uid, actor_name, actor_pid,
                                      after, prev_hash, hash)
            SELECT 'shop-' || lpad((n % 1000)::text, 4, '0'), n / 1000 + 1, n / 5000 + 1, 'advance', 'placed',
                   now() - (n::double precision / 1000000) * interval '60 days', 0, 'till', 1,
                   '{"id": 1}', repeat('0', 64), repeat('1', 64)
            FROM generate_series(0, 999999) AS n;
            INSERT INTO orders (shop_id, order_id, status, currency, total, items, created_at, updated_at, last_seq)
            SELECT 'shop-' || lpad((n % 1000)::text, 4, '0'), n / 1000 + 1,
                   CASE WHEN n % 50 = 0 THEN 'placed' WHEN n % 10 = 1 THEN 'cancelled' ELSE 'delivered' END, 'EUR', 1500, '[]',
                   now() - (n::double precision / 200000) * interval '60 days',
                   now() - (n::double precision / 200000) * interval '60 days', 1
            FROM generate_series(0, 199999) AS n;
            """, database: "central")
        // As autovacuum leaves them: statistics, and the visibility map that lets an index-only scan skip the table.
        try centre.server.psql("VACUUM ANALYZE order_events", database: "central")
        try centre.server.psql("VACUUM ANALYZE orders", database: "central")
        let queries = try headOfficeQueries()
        #expect(queries.count == 4)
        for query in queries.prefix(3) {
            let plan = try centre.sql("EXPLAIN " + query)
            #expect(plan.contains("Index Only Scan") && !plan.contains("Seq Scan"), "\(query)\n\(plan)")
        }
        // A shop's ingest check, cursor and history read: the primary key of one partition.
        for query in [
            "SELECT hash FROM order_events WHERE shop_id = 'shop-0042' AND seq = 700",
            "SELECT count(*) FROM order_events WHERE shop_id = 'shop-0042' AND seq <= 700",
            "SELECT seq, hash FROM order_events WHERE shop_id = 'shop-0042' AND seq > 100 ORDER BY seq LIMIT 500",
        ] {
            let plan = try centre.sql("EXPLAIN " + query)
            let partitions = Set(plan.matches(of: /order_events_p\d\d/).map { String($0.output) })
            #expect(partitions.count == 1 && !plan.contains("Seq Scan"), "\(query)\n\(plan)")
        }
    }
}
