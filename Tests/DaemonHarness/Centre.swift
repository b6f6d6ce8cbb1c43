import Foundation
import PizzaClient
import PizzaProtocol
public import PizzaTesting
import PizzaWire

public let postgresMissing: String? = {
    let reason = PostgresServer.unavailableReason
    if let reason { print("Replication tests skipped: \(reason)") }
    return reason
}()

/// A central PostgreSQL for one test: a database `central` owned by `central_owner`, migrated by
/// `pizzad migrate-central`, and a login role per shop that may only call the ingest functions.
public final class Centre: Sendable {
    public let server: PostgresServer
    public let folder: String

    /// `tls`: the server also speaks TLS, with a self-signed certificate for 127.0.0.1 at `folder/server.crt`.
    public init(migrate: Bool = true, tls: Bool = false) throws {
        folder = MemoryFolder.temporary + "pizzad-central-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var settings: [String] = []
        if tls {
            try Self.makeCertificate(in: folder)
            settings = ["ssl = on", "ssl_cert_file = '\(folder)/server.crt'", "ssl_key_file = '\(folder)/server.key'"]
        }
        server = try PostgresServer(parent: folder, settings: settings)
        try server.createDatabase("central", owner: "central_owner", password: "owner-secret")
        if migrate {
            // The head office trusts its own centre's certificate (prefer verifies it, as a shop's would).
            var owner = environment(shop: "head-office", user: "central_owner", password: "owner-secret")
            if tls { owner["PIZZAD_REPLICATION_POSTGRES_CA_FILE"] = folder + "/server.crt" }
            let migrated = try run(Binaries.pizzad, ["migrate-central"], environment: owner, directory: folder)
            let latest = try Self.latestVersion()
            guard migrated.status == 0, migrated.stdout.contains("central schema at version \(latest)") else {
                throw HarnessError("pizzad migrate-central: \(migrated.stdout)\n\(migrated.stderr)")
            }
        }
    }

    /// A self-signed certificate for 127.0.0.1 and its key, the key only readable by the server's user.
    public static func makeCertificate(in folder: String) throws {
        let made = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder + "/server.key", "-out",
                folder + "/server.crt",
            ])
        guard made.status == 0 else { throw HarnessError("openssl req: \(made.output)") }
        if getuid() == 0 {
            try FileManager.default.setAttributes(
                [.ownerAccountName: "postgres", .posixPermissions: 0o600], ofItemAtPath: folder + "/server.key")
        }
    }

    /// A shop role (`name`, password `<name>-secret`) and the environment a pizzad ships with as that role.
    public func shop(_ shop: String, role: String? = nil, password: String? = nil, batchSize: Int? = nil) throws
        -> [String:
        String]
    {
        let role = role ?? "shop_" + shop.replacingOccurrences(of: "-", with: "_")
        if try server.psql("SELECT count(*) FROM pg_roles WHERE rolname = '\(role)'") == "0" {
            try server.createShopRole(role, password: role + "-secret")
        }
        var environment = environment(shop: shop, user: role, password: password ?? role + "-secret")
        if let batchSize { environment["PIZZAD_REPLICATION_BATCH_SIZE"] = String(batchSize) }
        return environment
    }

    public func environment(shop: String, user: String, password: String, database: String = "central") -> [String:
        String]
    {
        let passwordFile = folder + "/\(user)-\(UUID().uuidString.prefix(4)).pw"
        _ = FileManager.default.createFile(atPath: passwordFile, contents: Data((password + "\n").utf8))
        return [
            "PIZZAD_REPLICATION_SHOP_ID": shop, "PIZZAD_REPLICATION_POSTGRES_HOST": "127.0.0.1",
            "PIZZAD_REPLICATION_POSTGRES_PORT": String(server.port), "PIZZAD_REPLICATION_POSTGRES_DATABASE": database,
            // replication.postgres.tls is left at its shipped default (prefer): against this plain centre it falls
            // back to plain text, as a shop's would (ReplicationTests.preferredTLS checks both ways).
            "PIZZAD_REPLICATION_POSTGRES_USER": user, "PIZZAD_REPLICATION_POSTGRES_PASSWORD_FILE": passwordFile,
        ]
    }

    /// A copy of the repository's migrations with the central ones only up to `version`, as an older pizzad had
    /// them (for `PIZZAD_MIGRATIONS`).
    /// The newest central schema in the repository's migrations.
    public static func latestVersion() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: Binaries.repository + "/migrations/central")
            .compactMap { $0.hasSuffix(".sql") ? Int($0.prefix(4)) : nil }.max() ?? 0
    }

    public func migrations(upTo version: Int) throws -> String {
        let folder = self.folder + "/migrations-v\(version)"
        try FileManager.default.copyItem(atPath: Binaries.repository + "/migrations", toPath: folder)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder + "/central")
        where (Int(file.prefix(4)) ?? 0) > version {
            try FileManager.default.removeItem(atPath: folder + "/central/" + file)
        }
        return folder
    }

    @discardableResult
    public func sql(_ query: String) throws -> String { try server.psql(query, database: "central") }

    /// `seq|hash` of every central entry of `shop`, in order.
    public func entries(_ shop: String) throws -> String {
        try sql("SELECT seq || '|' || hash FROM order_events WHERE shop_id = '\(shop)' ORDER BY seq")
    }

    deinit {
        // The server first: its data folder is inside `folder`, and `pg_ctl stop` needs it. Removing the folder
        // first left the postmaster running on deleted files after every test.
        try? server.stop(mode: "immediate")
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// `seq|hash` of every local audit entry, in order (what the centre must hold).
public func localEntries(_ daemon: some DaemonUnderTest) throws -> String { try localEntries(daemon.database) }

/// `seq|hash` of every audit entry in the database at `path`, in order.
public func localEntries(_ database: String) throws -> String {
    try sqlite3(database, "SELECT seq || '|' || hash FROM audit_log ORDER BY seq")
}

/// `pizzactl --json replication status`, parsed.
public func replicationStatus(_ daemon: some DaemonUnderTest) throws -> [String: Any] {
    let result = try daemon.pizzactl(["--json", "replication", "status"])
    guard result.status == 0,
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    else {
        throw HarnessError("replication status: \(result.status) \(result.stdout) \(result.stderr)")
    }
    return object
}

/// Waits until `daemon` has shipped everything it holds (backlog 0 and connected), or fails after `timeout`.
public func waitUntilShipped(_ daemon: some DaemonUnderTest, timeout: Double = 60) async throws {
    let deadline = TimeLimit(seconds: timeout)
    var status: [String: Any] = [:]
    while deadline.remains {
        status = try replicationStatus(daemon)
        if status["backlogEvents"] as? Int == 0, status["connected"] as? Bool == true,
            (status["latestSeq"] as? Int ?? 0) > 0
        {
            return
        }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw HarnessError("not shipped within \(timeout) s: \(status)\n\(daemon.output.suffix(3000))")
}

/// Waits until the replication status satisfies `condition`.
public func waitForStatus(
    _ daemon: some DaemonUnderTest, timeout: Double = 30, _ what: String, _ condition: ([String: Any]) -> Bool
) async throws -> [String: Any] {
    let deadline = TimeLimit(seconds: timeout)
    var status: [String: Any] = [:]
    while deadline.remains {
        status = try replicationStatus(daemon)
        if condition(status) { return status }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw HarnessError("\(what) did not happen within \(timeout) s: \(status)\n\(daemon.output.suffix(3000))")
}

/// `count` orders on `clients` connections at once, each created placed and advanced `advances` times; returns how
/// long each create took.
@discardableResult
public func loadOrders(_ daemon: some DaemonUnderTest, clients: Int = 4, orders count: Int, advances: Int = 2)
    async throws
    -> [Duration]
{
    try await withThrowingTaskGroup(of: [Duration].self) { group in
        for client in 0..<clients {
            group.addTask {
                try await ControlClient.withConnection(socket: daemon.socket, timeout: .seconds(60)) { connection in
                    var latencies: [Duration] = []
                    for index in stride(from: client, to: count, by: clients) {
                        let started = ContinuousClock.now
                        let order = try await connection.call(
                            "order.create",
                            [
                                ("customer", .string("guest \(index)")),
                                ("items", [["kind": "cheese", "quantity": 2]]),
                                ("place", true),
                            ])
                        latencies.append(ContinuousClock.now - started)
                        guard let id = order["id"]?.intValue else { throw HarnessError("no id in \(order)") }
                        for _ in 0..<(index % (advances + 1)) {
                            _ = try await connection.call("order.advance", [("id", .int(id))])
                        }
                    }
                    return latencies
                }
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
}
