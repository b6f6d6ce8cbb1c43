public import Logging
public import NIOCore
public import NIOPosix
public import PizzaStorage
import PizzaWire

/// How the shipper reaches the centre. PostgreSQL (``PostgresCentralClient``) is the one pizzad uses; the tests
/// run the shipper's retries, backoff and divergence in process against a client of their own, beside the tests
/// against a real PostgreSQL.
public protocol CentralClient: Sendable {
    /// A new session with the centre (a connection), or why there is none (a ``ReplicationError``).
    func connect() async throws -> any CentralSession
}

/// One session with the centre, and the few things a shop asks of it. Every request is bounded in time, and
/// fails with a ``ReplicationError``.
public protocol CentralSession: Sendable {
    /// Checks the central schema against `migrations` (applying the missing ones when allowed); its version.
    func prepareSchema(_ migrations: [Migration]) async throws -> Int
    /// Ships `batch` in one central transaction; the centre's cursor after it (or a rewind).
    func ingest(shop: String, key: String, batch: ShippingBatch, schema: Int) async throws -> CentralCursor
    /// The shop's central cursor.
    func cursor(shop: String, key: String) async throws -> CentralCursor
    /// A round trip, to notice a dead peer while there is nothing to ship.
    func ping() async throws
    /// Ends the session.
    func close() async
}

/// The centre in PostgreSQL, reached as the configuration says (`replication.postgres`).
public struct PostgresCentralClient: CentralClient {
    let configuration: ReplicationConfiguration
    let environment: [String: String]
    let loop: (any EventLoop)?
    let logger: Logger

    /// A client of the configured centre, its connections on `loop` (nil: the process's one shipping loop).
    public init(
        configuration: ReplicationConfiguration, environment: [String: String], loop: (any EventLoop)? = nil,
        logger: Logger
    ) {
        self.configuration = configuration
        self.environment = environment
        self.loop = loop
        self.logger = logger
    }

    public func connect() async throws -> any CentralSession {
        let password = try configuration.password(environment: environment)
        return try await CentralDatabase.connect(configuration, password: password, on: loop, logger: logger)
    }

    /// A loop for one daemon's connections to the centre like the process's own (a thread at the background
    /// niceness): for daemons run side by side in a test's process, which would otherwise share that one.
    public static func makeShippingGroup() -> MultiThreadedEventLoopGroup { CentralDatabase.makeShippingGroup() }
}

/// The central answer to a batch or a cursor query.
public struct CentralCursor: Sendable, Equatable {
    /// The last sequence number received in order; nil when the shop is not registered yet.
    public var cursor: Int64?
    public var hash: String?
    /// True when the batch started after cursor + 1 and nothing was written: re-send from the cursor.
    public var rewind: Bool?
    /// How many of the shop's entries are stored up to the cursor (pizzad_cursor only).
    public var events: Int64?
    /// How many of the shop's orders are stored (pizzad_cursor only).
    public var orders: Int64?

    /// The cursor from the functions' JSON answer (read with the protocol's strict parser, like every JSON).
    public init?(json text: String) {
        guard let value = try? JSONParser.parse(text), value.objectValue != nil else { return nil }
        cursor = value["cursor"]?.intValue
        hash = value["hash"]?.stringValue
        rewind = value["rewind"]?.boolValue
        events = value["events"]?.intValue
        orders = value["orders"]?.intValue
    }

    public init(
        cursor: Int64?, hash: String? = nil, rewind: Bool? = nil, events: Int64? = nil, orders: Int64? = nil
    ) {
        self.cursor = cursor
        self.hash = hash
        self.rewind = rewind
        self.events = events
        self.orders = orders
    }
}
