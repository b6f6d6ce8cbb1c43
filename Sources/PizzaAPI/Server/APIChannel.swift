import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypes
import NIOHTTPTypesHTTP2
import NIOSSL
import NIOTLS

/// An order API connection over TLS: HTTP/2 or HTTP/1.1 as ALPN settles it, each answered by Hummingbird's router
/// and, for the changes, on the event loop (``ChangesOnLoop`` on HTTP/1.1, ``StreamChangesOnLoop`` on HTTP/2).
///
/// HummingbirdHTTP2's connection (`HTTP2UpgradeChannel`) made every HTTP/2 stream a child channel with an async
/// channel and a task, whatever the request, through NIOHTTP2's inline multiplexer, which leaves no place between the
/// frames and the streams. Here the connection is NIOHTTP2's frame handler, its connection management (idle time,
/// graceful close), ``StreamChangesOnLoop``, then its stream multiplexer for every stream not taken before it; those
/// streams are served as HummingbirdHTTP2 served them (the HTTP types' codec, the request deadline, Hummingbird's
/// connection state, `handleHTTP` in a task each).
struct APIChannel: ServerChildChannel {
    /// The connection once ALPN has settled it: HTTP/1.1's async channel, or HTTP/2's streams for the router.
    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<NIONegotiatedHTTPVersion<HTTP1Channel.Value, AsyncStream<HTTP1Channel.Value>>>
        let channel: any Channel
    }

    private let tls: NIOSSLContext
    private let http1: HTTP1Channel
    private let streamHandlers: @Sendable () -> [any RemovableChannelHandler]
    private let changes: @Sendable () -> StreamChangesOnLoop
    private let idleTimeout: TimeAmount

    /// A connection offering `h2` and `http/1.1` with `tlsConfiguration`; `http1` serves HTTP/1.1 (its responder
    /// serves HTTP/2's streams too, after `streamHandlers`); `changes` makes each HTTP/2 connection's fast path. An
    /// HTTP/2 connection with no stream open for `idleTimeout` is closed gracefully (GOAWAY).
    init(
        tlsConfiguration: TLSConfiguration, http1: HTTP1Channel, idleTimeout: TimeAmount,
        streamHandlers: @escaping @Sendable () -> [any RemovableChannelHandler],
        changes: @escaping @Sendable () -> StreamChangesOnLoop
    ) throws {
        var configuration = tlsConfiguration
        configuration.applicationProtocols = NIOHTTP2SupportedALPNProtocols
        tls = try NIOSSLContext(configuration: configuration)
        self.http1 = http1
        self.idleTimeout = idleTimeout
        self.streamHandlers = streamHandlers
        self.changes = changes
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<
                NIONegotiatedHTTPVersion<HTTP1Channel.Value, AsyncStream<HTTP1Channel.Value>>
            > { result, channel in
                switch result {
                case .negotiated("h2"):
                    return channel.eventLoop.makeCompletedFuture {
                        .http2(try self.setupHTTP2(channel, logger: logger))
                    }
                case .negotiated("http/1.1"), .fallback:
                    return self.http1.setup(channel: channel, logger: logger).map { .http1_1($0) }
                case .negotiated:
                    // Nothing else is offered: a client that says it chose something else is not served.
                    return channel.close().flatMap {
                        channel.eventLoop.makeFailedFuture(NIOHTTP2Errors.invalidALPNToken())
                    }
                }
            }
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(NIOSSLServerHandler(context: tls))
            try sync.addHandler(negotiation)
            return channel.eventLoop.makeSucceededFuture(
                Value(negotiated: negotiation.protocolNegotiationResult, channel: channel))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }

    /// The HTTP/2 connection's handlers; the streams the router answers come out of the returned sequence, which
    /// ends when the connection closes.
    private func setupHTTP2(_ channel: any Channel, logger: Logger) throws -> AsyncStream<HTTP1Channel.Value> {
        let (streams, continuation) = AsyncStream<HTTP1Channel.Value>.makeStream()
        let sync = channel.pipeline.syncOperations
        // NIOHTTP2's defaults, as HummingbirdHTTP2 used them: 100 streams at once, a 16 KiB header list, and its
        // limits on resets, CONTINUATION, control frames and glitches (the floods' tests hold it to them).
        try sync.addHandler(
            NIOHTTP2Handler(mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()))
        try sync.addHandler(
            NIOHTTP2ServerConnectionManagementHandler(
                eventLoop: channel.eventLoop,
                configuration: .init(maxIdleTime: idleTimeout, maxAge: nil, maxGraceTime: nil, keepalive: nil)))
        try sync.addHandler(changes())
        let streamHandlers = streamHandlers
        try sync.addHandler(
            HTTP2StreamMultiplexer(mode: .server, channel: channel) { stream in
                stream.eventLoop.makeCompletedFuture {
                    let handlers = stream.pipeline.syncOperations
                    try handlers.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                    try handlers.addHandlers(streamHandlers())
                    try handlers.addHandler(HTTPConnectionStateHandler(logger: logger))
                    continuation.yield(try HTTP1Channel.Value(wrappingChannelSynchronously: stream))
                }
            })
        try sync.addHandler(ConnectionEnd())
        channel.closeFuture.whenComplete { _ in continuation.finish() }
        return streams
    }

    /// The HTTP/2 connection's last handler: closes it when the client's side ends (the listener allows half-closed
    /// connections, and NIOHTTP2 does not close one) or an error reaches the end of the pipeline, as HummingbirdHTTP2's
    /// connection manager did.
    private final class ConnectionEnd: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTP2Frame

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, event == .inputClosed { context.close(promise: nil) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1_1(let connection):
                await http1.handle(value: connection, logger: logger)
            case .http2(let streams):
                await withDiscardingTaskGroup { group in
                    for await stream in streams {
                        group.addTask { await http1.handleHTTP(asyncChannel: stream, logger: logger) }
                    }
                }
            }
        } catch {
            logger.debug("order API: a connection ended before its protocol was settled: \(error)")
        }
    }
}
