public import HummingbirdCore
public import Logging
public import NIOCore
public import NIOPosix

/// A listening socket whose connections are Hummingbird's HTTP channels: the one HTTP stack of pizzad, for the order
/// API, the board and the metrics endpoint alike.
///
/// Hummingbird binds by address only; so that a socket systemd passes is served the same way, the listener is NIO's
/// own (`ServerBootstrap`, bound or `withBoundSocket`), and each connection is set up by the caller's `admit`
/// (which counts it, refuses it, or adds handlers around the HTTP channel's) and then served by Hummingbird.
public struct HTTPListener: Sendable {
    /// What a listener serves on.
    public enum Socket: Sendable {
        case address(host: String, port: Int)
        /// A listening TCP socket's descriptor, passed by systemd.
        case passed(Int32)
    }

    /// Where it listens: `127.0.0.1:8443`, `[::]:8443`, or `passed socket`.
    public let address: String
    private let serveConnections: @Sendable () async -> Void
    private let closeListener: @Sendable () async -> Void

    /// Binds `socket`; each accepted connection goes through `admit`, which returns the HTTP channel's value (usually
    /// `child.setup(channel:logger:)` with handlers of its own added around it) or a failed future to drop it.
    /// `writeBuffer` is how much a connection may have unsent before its writer waits (NIO's 64 KiB by default).
    /// The connections are served on `group`'s loops (pizzad's: NIO's shared ones).
    public static func bind<Child: ServerChildChannel>(
        _ child: Child, on socket: Socket, name: String, group: MultiThreadedEventLoopGroup = .singleton,
        backlog: Int32 = 256,
        writeBuffer: ChannelOptions.Types.WriteBufferWaterMark = .init(low: 32 * 1024, high: 64 * 1024),
        logger: Logger, admit: @escaping @Sendable (any Channel) -> EventLoopFuture<Child.Value>
    ) async throws -> HTTPListener {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: backlog)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: writeBuffer)
        let server: NIOAsyncChannel<Child.Value, Never>
        switch socket {
        case .address(let host, let port):
            server = try await bootstrap.bind(host: host, port: port, childChannelInitializer: admit)
        case .passed(let descriptor):
            server = try await bootstrap.bind(descriptor, childChannelInitializer: admit)
        }
        let address = server.channel.localAddress.map(Self.describe) ?? "passed socket"
        return HTTPListener(
            address: address,
            serveConnections: {
                await withDiscardingTaskGroup { group in
                    do {
                        try await server.executeThenClose { inbound in
                            for try await connection in inbound {
                                group.addTask { await child.handle(value: connection, logger: logger) }
                            }
                        }
                    } catch {
                        logger.error("\(name): accepting connections failed: \(error)")
                    }
                }
            },
            closeListener: { try? await server.channel.close() })
    }

    /// Serves the connections until the listener is closed; those under way finish (their own deadlines end them).
    public func serve() async { await serveConnections() }

    /// Closes the listener: no new connection is accepted.
    public func close() async { await closeListener() }

    /// `127.0.0.1:9464` or `[::1]:9464`.
    static func describe(_ address: SocketAddress) -> String {
        let host = address.ipAddress ?? "?"
        let port = address.port ?? 0
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// The first handler of a connection past a listener's limit: answers `503 Service Unavailable` as soon as the
/// connection is active, reads nothing, and closes it.
public final class RefusedConnection: ChannelInboundHandler, Sendable {
    /// The connection's raw bytes, read and dropped.
    public typealias InboundIn = ByteBuffer

    static let answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    /// A refusal, added first in the pipeline.
    public init() {}

    /// Refuses at once when added to a connection already active.
    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    /// Refuses as the connection becomes active.
    public func channelActive(context: ChannelHandlerContext) { refuse(context) }

    /// Reads nothing of what the client sends.
    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func refuse(_ context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: Self.answer))).whenComplete { _ in
            bound.value.close(promise: nil)
        }
    }
}
