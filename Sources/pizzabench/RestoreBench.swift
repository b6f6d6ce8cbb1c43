import Foundation
import PizzaTesting

/// Restore drills: how long `pizzad restore` takes to bring back a shop of `orders` orders, from a backup (a copy
/// of the file, checked) and from the centre (every entry read from PostgreSQL, its hash recomputed, its rows
/// written), with the restored copy checked against the shop's. `pizzabench --only restore [--orders N]`.
enum RestoreBench {
    static func report(pizzad: String, work: String, orders: Int) async throws -> Bool {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let server = try PostgresServer(parent: work, durable: false)
        let interruptToken = LeftBehind.stopOnInterrupt { try? server.stop(mode: "immediate") }
        defer { LeftBehind.done(interruptToken) }
        try server.createDatabase("central", owner: "central_owner", password: "owner-secret")
        func environment(shop: String, user: String, password: String) throws -> [String: String] {
            let passwordFile = work + "/\(user).pw"
            try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
            return [
                "PIZZAD_REPLICATION_SHOP_ID": shop, "PIZZAD_REPLICATION_POSTGRES_HOST": "127.0.0.1",
                "PIZZAD_REPLICATION_POSTGRES_PORT": String(server.port),
                "PIZZAD_REPLICATION_POSTGRES_DATABASE": "central", "PIZZAD_REPLICATION_POSTGRES_USER": user,
                "PIZZAD_REPLICATION_POSTGRES_PASSWORD_FILE": passwordFile, "PIZZAD_REPLICATION_POSTGRES_TLS": "disable",
                "PIZZAD_REPLICATION_BATCH_SIZE": "2000",
            ]
        }
        let migrated = try ChildProcess.run(
            pizzad, ["migrate-central"],
            environment: try environment(shop: "head-office", user: "central_owner", password: "owner-secret"))
        guard migrated.status == 0 else { throw BenchError("pizzad migrate-central: \(migrated.output)") }
        try server.createShopRole("shop_drill", password: "shop_drill-secret")
        let shop = try environment(shop: "drill", user: "shop_drill", password: "shop_drill-secret")

        // The shop: `orders` orders through the socket, each created placed (its entries hashed by pizzad), shipped.
        let directory = work + "/shop"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let daemon = try PizzadProcess.bench(binary: pizzad, directory: directory, environment: shop)
        print("restore drill: filling a shop with \(orders) orders over the socket (16 clients), shipped to the centre")
        let filling = AcknowledgedLoad(socket: daemon.socket, clients: 16)
        filling.start()
        while Int(
            try Bench.run("/usr/bin/sqlite3", [daemon.database, "SELECT max(id) FROM carts"])
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 < orders
        {
            try await Task.sleep(for: .seconds(1))
        }
        filling.stop()
        _ = filling.wait()
        _ = try await ReplicationBench.waitForStatus(daemon, within: 1_800, "everything shipped") {
            $0["backlogEvents"]?.intValue == 0
        }
        let backup = directory + "/backup.sqlite"
        let backupStarted = Bench.now()
        _ = try Bench.run(
            pizzad.replacingOccurrences(of: "/pizzad", with: "/pizzactl"),
            [
                "--socket", daemon.socket, "--timeout", "600", "db", "backup", backup,
            ])
        let backupSeconds = Double(Bench.now() - backupStarted) / 1e9
        _ = try? daemon.stop()
        let entries = try Bench.run("/usr/bin/sqlite3", [daemon.database, "SELECT count(*) FROM audit_log"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let count = try Bench.run("/usr/bin/sqlite3", [daemon.database, "SELECT count(*) FROM carts"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let fingerprint = try Self.fingerprint(daemon.database)

        var rows: [[String]] = [
            ["db backup (online, while serving)", count, entries, Bench.format(backupSeconds, 1), ""]
        ]
        var held = true
        for (name, arguments) in [
            ("restore --from-backup", ["--from-backup", backup]), ("restore --from-central", ["--from-central"]),
        ] {
            let target = work + "/" + name.replacingOccurrences(of: " ", with: "_") + ".sqlite"
            let started = Bench.now()
            let result = try ChildProcess.run(
                pizzad, ["restore"] + arguments + ["--database", target], environment: shop)
            let elapsed = Double(Bench.now() - started) / 1e9
            let same = result.status == 0 && (try? Self.fingerprint(target)) == fingerprint
            held = held && same
            if result.status != 0 { print("restore drill: \(name): \(result.output)") }
            rows.append([name, count, entries, Bench.format(elapsed, 1), same ? "yes" : "NO"])
        }
        Bench.table(["step", "orders", "audit entries", "seconds", "the shop's rows and hashes"], rows)
        return held
    }

    /// What must come back: every order's row count and the audit chain's head.
    static func fingerprint(_ database: String) throws -> String {
        try Bench.run(
            "/usr/bin/sqlite3",
            [
                database,
                "SELECT (SELECT count(*) FROM carts), (SELECT count(*) FROM pizzas), (SELECT count(*) FROM status_history), "
                    + "(SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1), (SELECT sum(total) FROM carts)",
            ])
    }
}
