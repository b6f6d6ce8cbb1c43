import Crypto
import Foundation
import Logging
import PizzaReplication
import PizzaStorage
import PizzaTesting

/// The chain bench's centre: a durable PostgreSQL on this machine (fsync on), migrated by pizzad's own code, with a
/// real PgBouncer in front in transaction pooling; and what the bench reads off it.
final class ChainCentre: Sendable {
    let server: PostgresServer
    let bouncer: PgBouncerServer
    let folder: String

    /// PgBouncer's server connections for the whole database: twice the centre's cores, not one per shop. The
    /// ingest is CPU work: more connections than that only share the same cores, each transaction taking longer
    /// and costing more (lock and cache traffic), while the shops' batches stay small. Measured at 1,000 shops
    /// on this machine's two cores: 20 connections, 1.7 entries a batch and 18.6× `COPY`'s CPU per event; 4, 6.0
    /// and 7.0×; 2, 10.6 and 5.1× (with shippers timing out in the queue).
    static let serverConnections = 2 * ProcessInfo.processInfo.activeProcessorCount

    init(folder: String, centralMigrations: [Migration]) async throws {
        self.folder = folder
        server = try PostgresServer(parent: folder, durable: true, settings: ["max_connections = 100"])
        try server.createDatabase("central", owner: "central_owner", password: "owner-secret")
        let ownerPassword = folder + "/owner.pw"
        try Data("owner-secret\n".utf8).write(to: URL(fileURLWithPath: ownerPassword))
        _ = try await CentralSchema.migrate(
            ReplicationConfiguration(
                shopID: "head-office", host: "127.0.0.1", port: server.port, database: "central",
                user: "central_owner", passwordFile: ownerPassword, tls: .disable),
            migrations: centralMigrations, environment: [:], logger: Logger(label: "chain"))
        // PgBouncer logs in as one pooled role for every shop (central schema 6): one pool of server connections.
        try server.psql(
            "CREATE ROLE pizzad_pool LOGIN PASSWORD 'pool-secret' IN ROLE pizzad_shop, pizzad_pooled",
            database: "central")
        bouncer = try PgBouncerServer(
            server: server, parent: folder, poolSize: Self.serverConnections,
            serverConnections: Self.serverConnections, maxClients: 2_500, pooledRole: ("pizzad_pool", "pool-secret"))
    }

    /// A login role per shop, members of `pizzad_shop` only, and PgBouncer told their passwords.
    func addShops(_ indexes: Range<Int>) throws {
        try server.psql(
            """
            DO $$ BEGIN FOR i IN \(indexes.lowerBound)..\(indexes.upperBound - 1) LOOP
                EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE pizzad_shop', 'shop_' || lpad(i::text, 4, '0'),
                               'secret-' || i);
            END LOOP; END $$
            """)
        try bouncer.addUsers(indexes.map { (String(format: "shop_%04d", $0), "secret-\($0)") })
    }

    @discardableResult
    func sql(_ query: String) throws -> String { try server.psql(query, database: "central") }

    /// The server's clock now, as a literal to compare `at` and `received_at` with.
    func now() throws -> String { try sql("SELECT now()") }

    /// Events stored centrally.
    func events() throws -> Int { Int(try sql("SELECT coalesce(sum(cursor_seq), 0) FROM shops")) ?? 0 }

    /// Milliseconds from each event's time in its shop to its insert at the centre, for the events made between two
    /// instants: p50, p99 and max over all of them, and the worst shop's own p99.
    func lag(from start: String, to end: String) throws -> (p50: Double, p99: Double, max: Double, worstShopP99: Double)
    {
        let window = "FROM order_events WHERE at >= '\(start)' AND at < '\(end)'"
        let ms = "extract(epoch FROM received_at - at) * 1000"
        let text = try sql(
            """
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY \(ms)) || '|' ||
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY \(ms)) || '|' || max(\(ms)) || '|' ||
                   (SELECT max(p) FROM (SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY \(ms)) AS p \(window)
                    GROUP BY shop_id) s)
            \(window)
            """)
        let values = text.split(separator: "|").map { Double($0) ?? 0 }
        guard values.count == 4 else { return (0, 0, 0, 0) }
        return (values[0], values[1], values[2], values[3])
    }

    /// The rows a step wrote, written out for the `COPY` baseline: its events and the `orders` rows they wrote.
    struct CopyFiles {
        let events: String
        let orders: String
        let count: Int

        func remove() {
            unlink(events)
            unlink(orders)
        }
    }

    /// Writes out the events received since `start`, and the orders rows they wrote, for ``loadWithCopy(_:)``;
    /// `renamed`, with each shop id as `copy-<id>`, for ``loadIntoCentre(_:)``.
    func exportForCopy(since start: String, renamed: Bool = false) throws -> CopyFiles {
        let suffix = renamed ? ".renamed.copy" : ".copy"
        let files = CopyFiles(
            events: folder + "/events" + suffix, orders: folder + "/orders" + suffix,
            count: Int(try sql("SELECT count(*) FROM order_events WHERE received_at >= '\(start)'")) ?? 0)
        func columns(_ table: String) throws -> String {
            guard renamed else { return "*" }
            return try sql(
                """
                SELECT string_agg(CASE attname WHEN 'shop_id' THEN '''\(Self.copyPrefix)'' || shop_id AS shop_id'
                                  ELSE quote_ident(attname) END, ', ' ORDER BY attnum)
                FROM pg_attribute WHERE attrelid = '\(table)'::regclass AND attnum > 0 AND NOT attisdropped
                """)
        }
        let touched =
            "SELECT \(try columns("orders")) FROM orders o WHERE EXISTS (SELECT FROM order_events e "
            + "WHERE e.received_at >= '\(start)' AND e.shop_id = o.shop_id AND e.order_id = o.order_id)"
        try copy(
            "\\copy (SELECT \(try columns("order_events")) FROM order_events WHERE received_at >= '\(start)') "
                + "TO '\(files.events)'",
            "\\copy (\(touched)) TO '\(files.orders)'")
        return files
    }

    /// The shop ids of the rows ``loadIntoCentre(_:)`` loads begin with this, as none of the bench's shops' do.
    static let copyPrefix = "copy-"

    /// The centre's limit for the same work: `files` loaded with COPY into tables of the same shape (partitioned,
    /// the same indexes) and vacuumed, as each step's own rows are at its end. PostgreSQL's CPU seconds for that.
    func loadWithCopy(_ files: CopyFiles) throws -> Double {
        try sql(
            """
            DROP TABLE IF EXISTS copy_events, copy_orders;
            CREATE TABLE copy_events (LIKE order_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
                PARTITION BY HASH (shop_id);
            DO $$ BEGIN FOR n IN 0..15 LOOP
                EXECUTE format('CREATE TABLE copy_events_p%s PARTITION OF copy_events FOR VALUES WITH (MODULUS 16, REMAINDER %s)', n, n);
            END LOOP; END $$;
            ALTER TABLE copy_events ADD PRIMARY KEY (shop_id, seq);
            CREATE INDEX ON copy_events (shop_id, order_id, seq);
            CREATE INDEX ON copy_events (at);
            CREATE TABLE copy_orders (LIKE orders INCLUDING ALL);
            CHECKPOINT;
            """)
        let before = try server.cpuSeconds()
        try copy("\\copy copy_events FROM '\(files.events)'", "\\copy copy_orders FROM '\(files.orders)'")
        try sql("VACUUM copy_events, copy_orders")
        let cpu = try server.cpuSeconds() - before
        try sql("DROP TABLE copy_events, copy_orders")
        return cpu
    }

    /// The same limit in this centre as it is: `files` (exported `renamed`) loaded with COPY into the centre's own
    /// `order_events` and `orders`, which hold every row the steps before wrote, and vacuumed; PostgreSQL's CPU
    /// seconds for that. The rows are then deleted and vacuumed away again, not billed.
    func loadIntoCentre(_ files: CopyFiles) throws -> Double {
        try sql("CHECKPOINT")
        let before = try server.cpuSeconds()
        try copy("\\copy order_events FROM '\(files.events)'", "\\copy orders FROM '\(files.orders)'")
        try sql("VACUUM order_events, orders")
        let cpu = try server.cpuSeconds() - before
        try sql(
            """
            DELETE FROM order_events WHERE shop_id LIKE '\(Self.copyPrefix)%';
            DELETE FROM orders WHERE shop_id LIKE '\(Self.copyPrefix)%';
            """)
        try sql("VACUUM order_events, orders")
        return cpu
    }

    private func copy(_ commands: String...) throws {
        var arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", server.directory, "-p", String(server.port)]
        arguments += ["-U", "postgres", "-d", "central"]
        for command in commands { arguments += ["-c", command] }
        let result = try ChildProcess.run(PostgresServer.psqlPath, arguments, timeout: 600)
        guard result.status == 0 else { throw BenchError("psql \(commands): \(result.output)") }
    }

    /// Each shop's central history as `count|first|last|sha256 of the hashes joined by commas`.
    func histories() throws -> [String: String] {
        let text = try sql(
            """
            SELECT shop_id || ' ' || count(*) || '|' || min(seq) || '|' || max(seq) || '|' ||
                   encode(sha256(convert_to(string_agg(hash, ',' ORDER BY seq), 'UTF8')), 'hex')
            FROM order_events GROUP BY shop_id
            """)
        var histories: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { histories[String(parts[0])] = String(parts[1]) }
        }
        return histories
    }

    /// The same summary of a shop's own audit log.
    static func history(_ hashes: [String]) -> String {
        let digest = SHA256.hash(data: Data(hashes.joined(separator: ",").utf8)).map { String(format: "%02x", $0) }
        return "\(hashes.count)|1|\(hashes.count)|" + digest.joined()
    }
}
