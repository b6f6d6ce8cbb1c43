import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import PizzaCore
import ServiceLifecycle

/// An HTTP listener of pizzad's: the metrics and health endpoint (CONTRACT section 10: `GET /metrics` for
/// Prometheus, `/healthz`, `/readyz`) and the kitchen's board (`GET /board`, `/board/events`).
///
/// Each is off unless its address is configured (`metrics.listen`, `board.listen`) or systemd passes a socket of its
/// name (`pizzad-metrics.socket`, `pizzad-board.socket`, which let the service keep `PrivateNetwork=yes`). Each runs
/// on an event loop of its own, so a scrape, a board, a slow client or a flood of connections never shares a thread
/// with the control socket, and neither waits for the writer. At most ``maximumConnections`` connections at once
/// (more are answered 503 and closed); ``HTTPRequestGuard`` cuts off slow and oversized requests.
final class HTTPEndpoint: Service {
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

    /// The metrics endpoint, on the socket systemd passed, else on `address`; nil when neither is given.
    static func metrics(
        address: ListenAddress?, passed: SocketActivation.PassedSocket?, state: DaemonState, logger: Logger
    ) async throws -> HTTPEndpoint? {
        let stopping = Locked(false)
        let source = MetricsHTTPHandler.Source(
            metrics: { state.renderMetrics() },
            notReady: {
                if stopping.value { return "stopping" }
                return state.store.currentStorageFailure.map { failure in
                    "storage: \(failure)".split(whereSeparator: \.isNewline).joined(separator: " ")
                }
            })
        return try await bind(
            name: "metrics", path: "/metrics", address: address, passed: passed, state: state, stopping: stopping,
            overload: .metricsConnections, logger: logger
        ) { MetricsHTTPHandler(source: source) }
    }

    /// The kitchen's board, on the socket systemd passed, else on `board.listen`; nil when neither is given.
    static func board(
        settings: BoardSettings, passed: SocketActivation.PassedSocket?, state: DaemonState, logger: Logger
    ) async throws -> HTTPEndpoint? {
        try await bind(
            name: "board", path: "/board", address: settings.listen, passed: passed, state: state,
            stopping: Locked(false), overload: .boardConnections, logger: logger, writeBuffer: (1 << 20, 4 << 20)
        ) { BoardHTTPHandler(state: state, settings: settings) }
    }

    private static func bind(
        name: String, path: String, address: ListenAddress?, passed: SocketActivation.PassedSocket?,
        state: DaemonState, stopping: Locked<Bool>, overload: DaemonMetrics.OverloadReason, logger: Logger,
        writeBuffer: (low: Int, high: Int) = (32 * 1024, 64 * 1024),
        makeHandler: @escaping @Sendable () -> any ChannelHandler
    ) async throws -> HTTPEndpoint? {
        guard address != nil || passed != nil else { return nil }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = Locked<[ObjectIdentifier: any Channel]>([:])
        let metrics = state.daemonMetrics
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // A board page's events are written gathered, some hundred kilobytes at a time under load: it counts as
            // not keeping up (and is dropped) only when megabytes wait, not at NIO's default 64 KiB.
            .childChannelOption(.writeBufferWaterMark, value: .init(low: writeBuffer.low, high: writeBuffer.high))
            .childChannelInitializer { channel in
                let id = ObjectIdentifier(channel)
                let admitted = connections.withLock { open in
                    guard open.count < maximumConnections else { return false }
                    open[id] = channel
                    return true
                }
                guard admitted else {
                    metrics.overloaded(overload)
                    let refusal = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    return channel.writeAndFlush(channel.allocator.buffer(string: refusal)).flatMap { channel.close() }
                }
                channel.closeFuture.whenComplete { _ in _ = connections.withLock { $0.removeValue(forKey: id) } }
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(HTTPRequestGuard())
                    try sync.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                    try sync.addHandler(makeHandler())
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
                    "cannot listen for \(name) on \(address.map(\.description) ?? "the passed socket"): \(error)")
        }
        let server = HTTPEndpoint(
            channel: channel, group: group, connections: connections, stopping: stopping, logger: logger)
        logger.info(
            passed != nil ? "serving \(name) on the socket passed by systemd" : "serving \(name)",
            metadata: [Logger.Metadata.Key(name): "http://\(server.address)\(path)"])
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
