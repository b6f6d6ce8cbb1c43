import Foundation
import Histogram
import PizzaClient
import PizzaProtocol
import PizzaTesting
import PizzaWire

/// Shipping to a central PostgreSQL under the `order.create` load: pizzad's own rate with replication off, on, off
/// again (back to back, so the machine's drift shows), how fast the changes reach the centre and how late.
///
/// The centre is a throw-away PostgreSQL on this machine with its fsyncs on (`synchronous_commit=on`): it competes
/// with pizzad and the clients for the same two cores, which a shop's remote centre would not.
enum ReplicationBench {
    struct Run {
        var result: LoadResult
        /// Audit entries the run wrote (what there is to ship).
        var events: Int = 0
        /// Entries not yet at the centre when the load ended, and how long they took to arrive after it.
        var backlogAtEnd: Int = 0
        var drainSeconds: Double = 0
        var batches = 0
    }

    /// One shipping run and the runs with replication off on either side of it.
    struct Shipping {
        var name: String
        var on: Run
        var offBefore: Run
        var offAfter: Run
        /// Milliseconds from the entry's commit time in the shop to its insert at the centre.
        var lagP50: Double
        var lagP99: Double
        var lagMax: Double

        var offRate: Double { (offBefore.result.perSecond + offAfter.result.perSecond) / 2 }
        var ratio: Double { on.result.perSecond / offRate }
        /// pizzad's CPU per order with replication off (the mean of the runs beside) over with it on: what shipping
        /// costs pizzad itself, whatever the centre takes from the shared cores.
        var cpuRatio: Double {
            func perOrder(_ run: Run) -> Double { run.result.daemonCPU / Double(run.result.operations) }
            return (perOrder(offBefore) + perOrder(offAfter)) / 2 / perOrder(on)
        }
        /// Entries per second from the start of the load until the last one was at the centre.
        var shippedPerSecond: Double { Double(on.events) / (on.result.seconds + on.drainSeconds) }
    }

    /// The same work with shipping off and on: both runs at one pace below the machine's limit (half what the
    /// shipping run reached flat out), off, on, off. Flat out, the run with shipping makes fewer orders (the centre
    /// takes CPU from the same cores), so its group commits are smaller and each order costs more for that alone.
    struct Paced {
        var perSecond: Double
        var offBefore: Run
        var on: Run
        var offAfter: Run
        var lagP99 = 0.0

        /// pizzad's CPU per order with shipping on over off (the mean of the two beside).
        var cpuCost: Double {
            func perOrder(_ run: Run) -> Double { run.result.daemonCPU / Double(run.result.operations) }
            return perOrder(on) / ((perOrder(offBefore) + perOrder(offAfter)) / 2)
        }
    }

    /// Off, on, off, on with the centre niced, off: each shipping run is compared with the runs beside it.
    static func run(pizzad: String, work: String, clients: Int, seconds: Double) async throws -> (
        runs: [(name: String, run: Run, ratio: Double?)], shipping: [Shipping], paced: Paced
    ) {
        let folder = work + "/replication"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let server = try PostgresServer(parent: folder, durable: true)
        // Stopped and removed when `server` goes (its deinit); an interrupt would skip that.
        let interruptToken = LeftBehind.stopOnInterrupt { try? server.stop(mode: "immediate") }
        defer { LeftBehind.done(interruptToken) }
        try server.createDatabase("central", owner: "central_owner", password: "owner-secret")
        func environment(shop: String, user: String, password: String) throws -> [String: String] {
            let passwordFile = folder + "/\(user).pw"
            try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
            return [
                "PIZZAD_REPLICATION_SHOP_ID": shop, "PIZZAD_REPLICATION_POSTGRES_HOST": "127.0.0.1",
                "PIZZAD_REPLICATION_POSTGRES_PORT": String(server.port),
                "PIZZAD_REPLICATION_POSTGRES_DATABASE": "central",
                "PIZZAD_REPLICATION_POSTGRES_USER": user, "PIZZAD_REPLICATION_POSTGRES_PASSWORD_FILE": passwordFile,
                "PIZZAD_REPLICATION_POSTGRES_TLS": "disable",
            ]
        }
        let migrated = try ChildProcess.run(
            pizzad, ["migrate-central"],
            environment: try environment(shop: "head-office", user: "central_owner", password: "owner-secret"))
        guard migrated.status == 0 else { throw BenchError("pizzad migrate-central: \(migrated.output)") }

        func load(_ name: String, shop: String?, perSecond: Double? = nil) async throws -> Run {
            let directory = folder + "/" + name
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var shipping: [String: String] = [:]
            if let shop {
                let role = "shop_" + shop.replacingOccurrences(of: "-", with: "_")
                try server.createShopRole(role, password: role + "-secret")
                shipping = try environment(shop: shop, user: role, password: role + "-secret")
            }
            let daemon = try PizzadProcess.bench(binary: pizzad, directory: directory, environment: shipping)
            defer { _ = try? daemon.stop() }
            if shop != nil {
                _ = try await waitForStatus(daemon, within: 30, "replication connected") {
                    $0["connected"]?.boolValue == true
                }
            }
            var run = Run(
                result: try Load.create(daemon: daemon, clients: clients, seconds: seconds, perSecond: perSecond))
            guard let shop else { return run }
            let loadEnded = Bench.now()
            let atEnd = try await status(daemon)
            run.backlogAtEnd = Int(atEnd["backlogEvents"]?.intValue ?? -1)
            let shipped = try await waitForStatus(daemon, within: 300, "everything shipped") {
                $0["backlogEvents"]?.intValue == 0
            }
            run.batches = Int(shipped["batches"]?.intValue ?? 0)
            run.drainSeconds = run.backlogAtEnd == 0 ? 0 : Double(Bench.now() - loadEnded) / 1e9
            run.events = Int(shipped["latestSeq"]?.intValue ?? 0)
            let centralCount =
                Int(try server.psql("SELECT count(*) FROM order_events WHERE shop_id = '\(shop)'", database: "central"))
                ?? -1
            guard centralCount == run.events else {
                throw BenchError("the centre holds \(centralCount) entries of \(shop), the shop wrote \(run.events)")
            }
            return run
        }
        func lags(_ shop: String) throws -> [Double] {
            try server.psql(
                """
                SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 2) || '|'
                    || round((percentile_cont(0.99) WITHIN GROUP (ORDER BY ms))::numeric, 2) || '|' || round(max(ms)::numeric, 2)
                FROM (SELECT extract(epoch FROM received_at - at) * 1000 AS ms FROM order_events WHERE shop_id = '\(shop)') lags
                """, database: "central"
            ).split(separator: "|").map { Double($0) ?? -1 }
        }

        let off1 = try await load("off-1", shop: nil)
        let on = try await load("on", shop: "bench")
        let off2 = try await load("off-2", shop: nil)
        // A centre on another machine takes no CPU from the shop: niced to 19, this one only takes what is idle.
        try server.renice(19)
        let niced = try await load("on-niced", shop: "bench-niced")
        let off3 = try await load("off-3", shop: nil)
        try server.renice(0)
        let pace = (on.result.perSecond / 100).rounded() * 50
        var paced = Paced(
            perSecond: pace, offBefore: try await load("paced-off-1", shop: nil, perSecond: pace),
            on: try await load("paced-on", shop: "bench-paced", perSecond: pace),
            offAfter: try await load("paced-off-2", shop: nil, perSecond: pace))
        paced.lagP99 = try lags("bench-paced")[1]
        let local = try lags("bench")
        let remote = try lags("bench-niced")
        let shipping = [
            Shipping(
                name: "on", on: on, offBefore: off1, offAfter: off2, lagP50: local[0], lagP99: local[1],
                lagMax: local[2]),
            Shipping(
                name: "on, centre niced", on: niced, offBefore: off2, offAfter: off3,
                lagP50: remote[0], lagP99: remote[1], lagMax: remote[2]),
        ]
        return (
            [
                ("off", off1, nil), ("on", on, shipping[0].ratio), ("off", off2, nil),
                ("on, centre niced", niced, shipping[1].ratio),
                ("off", off3, nil),
            ],
            shipping, paced
        )
    }

    static func status(_ daemon: PizzadProcess) async throws -> JSONValue {
        try await ControlClient.withConnection(socket: daemon.socket, timeout: .seconds(30)) {
            try await $0.call(.replicationStatus)
        }
    }

    static func waitForStatus(
        _ daemon: PizzadProcess, within limit: Double, _ what: String, _ condition: (JSONValue) -> Bool
    ) async throws -> JSONValue {
        let deadline = Bench.now() + UInt64(limit * 1e9)
        while true {
            let current = try await status(daemon)
            if condition(current) { return current }
            guard Bench.now() < deadline else {
                throw BenchError("\(what) did not happen within \(limit) s: \(current)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
