import Foundation
import PizzaClient
import PizzaProtocol
import PizzaTesting
import Testing

let pgbouncerMissing: String? = {
    let reason = PgBouncerServer.unavailableReason
    if let reason { print("PgBouncer tests skipped: \(reason)") }
    return reason
}()

/// A centre with a real PgBouncer in front, in transaction pooling, as a chain runs it.
private struct ChainCentre {
    let centre: Centre
    let bouncer: PgBouncerServer

    /// `serverConnections` caps PostgreSQL's connections for the database: at 1, every shop's pool takes the one
    /// connection from the others in turn, so no transaction can count on the session of the one before it.
    init(serverConnections: Int = 1) throws {
        centre = try Centre()
        bouncer = try PgBouncerServer(
            server: centre.server, parent: centre.folder, poolSize: 1, serverConnections: serverConnections)
    }

    /// The environment of a pizzad that ships as `shop` through PgBouncer.
    func shop(_ shop: String) throws -> [String: String] {
        var environment = try centre.shop(shop)
        let role = environment["PIZZAD_REPLICATION_POSTGRES_USER"] ?? ""
        try bouncer.addUser(role, password: role + "-secret")
        environment["PIZZAD_REPLICATION_POSTGRES_PORT"] = String(bouncer.port)
        return environment
    }

    /// psql as `role` through PgBouncer: the output, or the error PostgreSQL gave.
    func psql(as role: String, _ sql: String) throws -> (status: Int32, output: String) {
        try ChildProcess.run(
            "/usr/bin/psql",
            [
                "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", String(bouncer.port), "-U", role, "-d", "central",
                "-c", sql,
            ],
            environment: ["PGPASSWORD": role + "-secret"], timeout: 30)
    }
}

@Suite(
    "A chain's centre: shops ship through PgBouncer in transaction pooling, each shop's rows its own", .serialized,
    .enabled(if: pgbouncerMissing == nil))
struct ChainTests {
    @Test(
        "two shops ship through PgBouncer (one server connection for both, transaction pooling) exactly once; PgBouncer restarted mid-shipping heals"
    )
    func throughPgBouncer() async throws {
        let chain = try ChainCentre()
        let berlin = try DaemonProcess(environment: try chain.shop("berlin"))
        let paris = try DaemonProcess(environment: try chain.shop("paris"))
        // Small batches, so shipping is still under way when PgBouncer goes away.
        async let a: Void = { try await loadOrders(berlin, orders: 300) }()
        async let b: Void = { try await loadOrders(paris, orders: 300) }()
        try await Task.sleep(for: .milliseconds(500))
        try chain.bouncer.stop()
        try await Task.sleep(for: .seconds(1))
        // While it is gone, the kitchen goes on and the backlog waits in audit_log.
        #expect(try berlin.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        try chain.bouncer.start()
        _ = try await (a, b)
        try await waitUntilShipped(berlin, timeout: 120)
        try await waitUntilShipped(paris, timeout: 120)
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
        // PostgreSQL saw one connection at a time from PgBouncer, never one per shop.
        #expect(
            try chain.centre.sql(
                "SELECT count(*) <= 1 FROM pg_stat_activity WHERE datname = 'central' AND usename LIKE 'shop_%'") == "t"
        )
        #expect(try berlin.stop() == 0)
        #expect(try paris.stop() == 0)
    }

    @Test(
        "one shop's credentials cannot write, read or claim another shop's rows, directly or through PgBouncer; the centre names the role"
    )
    func eachShopItsOwn() async throws {
        let chain = try ChainCentre(serverConnections: 4)
        let berlin = try DaemonProcess(environment: try chain.shop("berlin"))
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
        // Paris's role, knowing Berlin's shop key, still cannot append to Berlin's history or read it.
        let ingest = try chain.psql(
            as: "shop_paris", "SELECT pizzad_ingest('berlin', '\(key)', '\(entry)'::jsonb)")
        #expect(ingest.status != 0 && ingest.output.contains("ships as role shop_berlin, not shop_paris"), "\(ingest)")
        let state = try chain.psql(as: "shop_paris", "SELECT pizzad_shop_state('berlin')")
        #expect(state.status != 0 && state.output.contains("not shop_paris"), "\(state)")
        let history = try chain.psql(as: "shop_paris", "SELECT count(*) FROM pizzad_history('berlin', 0, 100)")
        #expect(history.status != 0 && history.output.contains("not registered to role shop_paris"), "\(history)")
        // The tables themselves are closed to every shop role.
        for sql in [
            "SELECT count(*) FROM order_events", "DELETE FROM order_events WHERE shop_id = 'berlin'",
            "UPDATE shops SET role_name = 'shop_paris' WHERE shop_id = 'berlin'",
        ] {
            let refused = try chain.psql(as: "shop_paris", sql)
            #expect(refused.status != 0 && refused.output.contains("permission denied"), "\(sql): \(refused)")
        }
        // A shop that sets its role after connecting is still itself: SET ROLE needs membership, which no shop has.
        let setRole = try chain.psql(as: "shop_paris", "SET ROLE shop_berlin")
        #expect(setRole.status != 0 && setRole.output.contains("permission denied"), "\(setRole)")
        #expect(try chain.centre.entries("berlin") == before)
        #expect(try berlin.stop() == 0)
    }
}
