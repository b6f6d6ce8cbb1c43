import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PizzaCore
import PizzaStorage
import PizzaWire
import PostgresNIO

/// One connection to the central PostgreSQL, and the few things a shop asks of it: the schema's state, a batch
/// ingested, the cursor. Every request is bounded in time, so a slow or partitioned peer fails it instead of
/// hanging the shipper.
struct CentralDatabase: CentralSession {
    static let centralTables = ["shops", "orders", "order_events"]
    static let migrationsTable = "pizzad_central_migrations"

    let connection: PostgresConnection
    /// The connection's close, which fails the request under way at once.
    let end: ConnectionEnd
    let configuration: ReplicationConfiguration
    let logger: Logger

    /// Connects as the configured role.
    static func connect(
        _ configuration: ReplicationConfiguration, password: String?, on loop: (any EventLoop)? = nil,
        logger: Logger
    ) async throws -> CentralDatabase {
        let loop = loop ?? Self.eventLoop
        let tls: PostgresConnection.Configuration.TLS
        switch configuration.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try Self.tlsContext(configuration))
        case .require: tls = .require(try Self.tlsContext(configuration))
        }
        var settings = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.user, password: password,
            database: configuration.database, tls: tls)
        let seconds = configuration.timeoutSeconds
        settings.options.connectTimeout = .seconds(Int64(min(seconds, 10)))
        settings.options.additionalStartupParameters = [("application_name", "pizzad \(configuration.shopID)")]
        // The TCP connect has its own limit, but a stalled server (frozen, overloaded) accepts the connection in
        // its kernel and never answers the start-up: the whole handshake runs under the deadline. A connection
        // made after the shipper stopped waiting for it (the deadline passed, or the shipper was cancelled: a
        // daemon stopping while it connects) is closed, not dropped open: an open one dropped stays a session at
        // the centre, and PostgresNIO's debug builds trap on it.
        do {
            let settings = settings
            let connection = try await Deadline.run(
                seconds: seconds,
                onTimeout: {
                    ReplicationError.timedOut(operation: "connecting to \(configuration.peer)", seconds: seconds)
                },
                discardingLate: { connection in try? await connection.close() },
                {
                    try await PostgresConnection.connect(on: loop, configuration: settings, id: 1, logger: logger)
                })
            return CentralDatabase(
                connection: connection, end: ConnectionEnd(connection.closeFuture), configuration: configuration,
                logger: logger)
        } catch {
            throw Self.translate(error, peer: configuration.peer)
        }
    }

    func close() async { try? await connection.close() }

    /// The event loop of every connection to the centre: a thread of its own at the background thread's niceness,
    /// not one of the kitchen's loops. Sending a batch (half a megabyte under load; on loopback the kernel also
    /// charges the sender for the receiver's side of TCP) and reading the answer then take only CPU the kitchen
    /// leaves. Made at the first connection, kept for the process's life like NIO's own singleton group.
    static var eventLoop: any EventLoop { shippingGroup.next() }

    private static let shippingGroup = makeShippingGroup()

    /// A shipping loop of its own, as ``eventLoop``'s (one thread at the background niceness).
    static func makeShippingGroup() -> MultiThreadedEventLoopGroup {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // The loop's first task, so it runs before any connection's work; Linux keeps niceness per thread.
        group.next().execute {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, BackgroundThread.niceness)
        }
        return group
    }

    // MARK: Shipping

    /// Ships `entries` (consecutive, oldest first) in one central transaction. From central schema 6 the shop's own
    /// role goes along: through a pooled role (a chain's PgBouncer) it is the one the shop is registered to; on its
    /// own connection the centre takes the session's. Before, the three-argument form is all there is.
    func ingest(shop: String, key: String, batch: ShippingBatch, schema: Int) async throws -> CentralCursor {
        let events = batch.text
        let role = configuration.user
        return try await answer("shipping entries \(batch.first)…\(batch.last?.seq ?? 0)") { connection, logger in
            if schema >= Self.pooledSchema {
                return try await connection.query(
                    "SELECT pizzad_ingest(\(shop), \(key), \(events)::jsonb, \(role))::text", logger: logger)
            }
            return try await connection.query(
                "SELECT pizzad_ingest(\(shop), \(key), \(events)::jsonb)::text", logger: logger)
        }
    }

    /// The central schema whose `pizzad_ingest` takes the shop's role.
    static let pooledSchema = 6

    /// The shop's central cursor.
    func cursor(shop: String, key: String) async throws -> CentralCursor {
        try await answer("reading the central cursor") { connection, logger in
            try await connection.query("SELECT pizzad_cursor(\(shop), \(key))::text", logger: logger)
        }
    }

    /// A round trip, to notice a dead peer while there is nothing to ship.
    func ping() async throws {
        try await request("checking the connection") { connection, logger in
            _ = try await connection.query("SELECT 1", logger: logger).collect()
        }
    }

    private func answer(
        _ operation: String,
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> PostgresRowSequence
    ) async throws -> CentralCursor {
        let text = try await request(operation) { connection, logger in
            try await body(connection, logger).collect().first.map { try $0.decode(String.self) }
        }
        guard let text, let cursor = CentralCursor(json: text) else {
            throw ReplicationError.central(
                detail: "\(operation): an answer pizzad does not understand: \(text ?? "none")")
        }
        return cursor
    }

    /// Runs `body`, failing with ``ReplicationError/timedOut(operation:seconds:)`` when PostgreSQL has not answered
    /// in time, and with a ``ReplicationError`` for anything else. On a closed connection it fails at once.
    /// `seconds` replaces `timeoutSeconds` for a request known to take long (a migration).
    func request<T: Sendable>(
        _ operation: String, seconds: Int? = nil,
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let connection = connection
        let end = end
        let logger = logger
        let peer = configuration.peer
        let seconds = seconds ?? configuration.timeoutSeconds
        guard !connection.isClosed else {
            throw ReplicationError.unreachable(peer: peer, detail: "the connection was closed (\(operation))")
        }
        do {
            return try await Deadline.run(
                seconds: seconds,
                onTimeout: {
                    // Closing the connection ends the request on PostgreSQL's side too.
                    Task { try? await connection.close() }
                    return ReplicationError.timedOut(operation: operation, seconds: seconds)
                },
                endsWith: end,
                onEnded: {
                    ReplicationError.unreachable(peer: peer, detail: "the connection was closed (\(operation))")
                },
                { try await body(connection, logger) })
        } catch {
            throw Self.translate(error, peer: peer)
        }
    }

    /// The client side of TLS: the server's certificate and name verified, against `caFile` when set.
    private static func tlsContext(_ configuration: ReplicationConfiguration) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile { tls.trustRoots = .file(caFile) }
        return try NIOSSLContext(configuration: tls)
    }

    /// Why a connection could not be made, in a few words ("connection refused", "cannot resolve host …", a failed
    /// TLS handshake).
    static func describeConnectionFailure(_ error: any Error) -> String {
        switch error {
        case let error as NIOSSLError:
            if case .handshakeFailed = error {
                return "TLS handshake failed (\(error)); if the server's certificate is signed by a private CA, "
                    + "set replication.postgres.caFile to it"
            }
            return "TLS: \(error)"
        case let error as NIOConnectionError:
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve \(error.host): \(dns)" }
            let failures = error.connectionErrors.map {
                "\($0.target.ipAddress ?? "\($0.target)"): \(describeConnectionFailure($0.error))"
            }
            return failures.isEmpty ? "\(error)" : Array(Set(failures)).sorted().joined(separator: "; ")
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case ChannelError.connectTimeout(let limit):
            return "no answer within \(limit.nanoseconds / 1_000_000_000) s"
        default:
            return "\(error)"
        }
    }

    /// What went wrong, for an operator.
    static func translate(_ error: any Error, peer: String) -> any Error {
        switch error {
        case let error as ReplicationError: return error
        case is CancellationError: return error
        case let error as PSQLError:
            let state = error.serverInfo?[.sqlState] ?? ""
            var detail = error.serverInfo?[.message] ?? "\(error.code)"
            if let hint = error.serverInfo?[.hint] { detail += " (\(hint))" }
            if error.serverInfo == nil, let underlying = error.underlying {
                detail =
                    error.code == .connectionError
                    ? Self.describeConnectionFailure(underlying) : detail + ": \(underlying)"
            }
            switch state {
            case "PZ001": return ReplicationError.diverged(detail: detail)
            case "PZ002", "PZ003": return ReplicationError.shopCollision(detail: detail)
            case "28P01", "28000": return ReplicationError.authentication(peer: peer, detail: detail)
            case "": return ReplicationError.unreachable(peer: peer, detail: detail)
            case _ where state.hasPrefix("08") || state.hasPrefix("57"):
                // Connection exceptions and operator intervention (a shutdown, a crash, not accepting connections yet).
                return ReplicationError.unreachable(peer: peer, detail: "\(detail) [SQLSTATE \(state)]")
            case "53100": return ReplicationError.central(detail: "the central disk is full: \(detail)")
            default: return ReplicationError.central(detail: "\(detail) [SQLSTATE \(state)]")
            }
        case let error as PostgresTransactionError:
            if let inner = error.beginError ?? error.closureError ?? error.commitError ?? error.rollbackError {
                return translate(inner, peer: peer)
            }
            return ReplicationError.central(detail: "\(error)")
        default:
            return ReplicationError.unreachable(peer: peer, detail: "\(error)")
        }
    }
}
