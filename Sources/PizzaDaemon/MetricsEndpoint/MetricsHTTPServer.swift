import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import PizzaCore
import ServiceLifecycle

/// The HTTP metrics and health endpoint (CONTRACT section 10): `GET /metrics` for Prometheus, `/healthz`, `/readyz`.
///
/// Off unless `metrics.listen` is set or systemd passes a socket named `metrics` (`pizzad-metrics.socket`, which
/// lets the service keep `PrivateNetwork=yes`). It runs on an event loop of its own, so a scrape, a slow client or
/// a flood of connections never shares a thread with the control socket, and it only reads what the daemon
/// keeps in memory plus one index seek per status: it never waits for the writer. At most
/// ``maximumConnections`` connections at once (more are answered 503 and closed); ``HTTPRequestGuard`` cuts off
/// slow and oversized requests.
final class MetricsHTTPServer: Service {
    /// Connections served at once; one more is answered 503 and closed.
    static let maximumConnections = 1024

    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let connections: Locked<[ObjectIdentifier: any Channel]>
    private let stopping: Locked<Bool>
    private let logger: Logger
    /// Where it listens, for the log and `daemon.status`.
    let address: String

    private init(
        channel: any Channel, group: MultiThreadedEventLoopGroup, connections: Locked<[ObjectIdentifier: any Channel]>,
        stopping: Locked<Bool>, logger: Logger
    ) {
        self.channel = channel
        self.group = group
        self.connections = connections
        self.stopping = stopping
        self.logger = logger
        address = channel.localAddress.map(Self.describe) ?? "passed socket"
    }

    /// Starts listening on the socket systemd passed, else on `address`; nil when neither is given.
    static func bind(
        address: ListenAddress?, passed: SocketActivation.PassedSocket?, state: DaemonState, logger: Logger
    ) async throws -> MetricsHTTPServer? {
        guard address != nil || passed != nil else { return nil }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = Locked<[ObjectIdentifier: any Channel]>([:])
        let stopping = Locked(false)
        let source = MetricsHTTPHandler.Source(
            metrics: { state.renderMetrics() },
            notReady: {
                if stopping.value { return "stopping" }
                return state.store.currentStorageFailure.map { failure in
                    "storage: \(failure)".split(whereSeparator: \.isNewline).joined(separator: " ")
                }
            })
        let metrics = state.daemonMetrics
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let id = ObjectIdentifier(channel)
                let admitted = connections.withLock { open in
                    guard open.count < maximumConnections else { return false }
                    open[id] = channel
                    return true
                }
                guard admitted else {
                    metrics.overloaded(.metricsConnections)
                    let refusal = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    return channel.writeAndFlush(channel.allocator.buffer(string: refusal)).flatMap { channel.close() }
                }
                channel.closeFuture.whenComplete { _ in _ = connections.withLock { $0.removeValue(forKey: id) } }
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(HTTPRequestGuard())
                    try sync.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                    try sync.addHandler(MetricsHTTPHandler(source: source))
                }
            }
        let channel: any Channel
        do {
            if let passed {
                channel = try await bootstrap.withBoundSocket(passed.descriptor).get()
            } else if let address {
                channel = try await bootstrap.bind(host: address.host, port: address.port).get()
            } else {
                preconditionFailure("checked above")
            }
        } catch {
            try? await group.shutdownGracefully()
            throw ControlSocketServer.BindError(
                description:
                    "cannot listen for metrics on \(address.map(\.description) ?? "the passed socket"): \(error)")
        }
        let server = MetricsHTTPServer(
            channel: channel, group: group, connections: connections, stopping: stopping, logger: logger)
        logger.info(
            passed != nil ? "serving metrics on the socket passed by systemd" : "serving metrics",
            metadata: ["metrics": "http://\(server.address)/metrics"])
        return server
    }

    /// `127.0.0.1:9464` or `[::1]:9464`.
    private static func describe(_ address: SocketAddress) -> String {
        let host = address.ipAddress ?? "?"
        let port = address.port ?? 0
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    func run() async throws {
        try? await gracefulShutdown()
        // Until the process exits, /readyz says it is stopping; then the listener and every connection close.
        stopping.withLock { $0 = true }
        try? await channel.close()
        for connection in connections.withLock({ Array($0.values) }) { try? await connection.close() }
        try? await group.shutdownGracefully()
    }
}
