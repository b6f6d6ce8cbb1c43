import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import PizzaAPI
import PizzaCore
import ServiceLifecycle

/// An HTTP listener of pizzad's beside the order API: the metrics and health endpoint (CONTRACT section 10:
/// `GET /metrics` for Prometheus, `/healthz`, `/readyz`) and the kitchen's board (`GET /board`, `/board/events`).
///
/// Each is off unless its address is configured (`metrics.listen`, `board.listen`) or systemd passes a socket of its
/// name (`pizzad-metrics.socket`, `pizzad-board.socket`, which let the service keep `PrivateNetwork=yes`). Each is
/// served as the order API is: an ``HTTPListener`` whose connections are Hummingbird's HTTP channels running a router
/// (``MetricsRoutes``, ``BoardRoutes``), on NIO's shared event loops. What keeps a scrape, a board or a flood of
/// connections from holding the control socket is the limits, not threads of their own: at most
/// ``maximumConnections`` at once (more are answered 503 and closed), and ``HTTPRequestGuard`` cuts off slow and
/// oversized requests. Neither waits for the writer.
final class HTTPEndpoint: Service {
    /// Connections served at once; one more is answered 503 and closed.
    static let maximumConnections = 1024

    private let listener: HTTPListener
    private let connections: Locked<[ObjectIdentifier: any Channel]>
    private let stopping: Locked<Bool>
    /// Where it listens, for the log and `daemon.status`.
    var address: String { listener.address }

    private init(listener: HTTPListener, connections: Locked<[ObjectIdentifier: any Channel]>, stopping: Locked<Bool>) {
        self.listener = listener
        self.connections = connections
        self.stopping = stopping
    }

    /// The metrics endpoint, on the socket systemd passed, else on `address`; nil when neither is given.
    static func metrics(
        address: ListenAddress?, passed: SocketActivation.PassedSocket?, state: DaemonState,
        group: MultiThreadedEventLoopGroup, logger: Logger
    ) async throws -> HTTPEndpoint? {
        let stopping = Locked(false)
        let routes = MetricsRoutes(
            metrics: { state.renderMetrics() },
            notReady: {
                if stopping.value { return "stopping" }
                return state.store.currentStorageFailure.map { failure in
                    "storage: \(failure)".split(whereSeparator: \.isNewline).joined(separator: " ")
                }
            })
        return try await bind(
            name: "metrics", path: "/metrics", address: address, passed: passed, router: routes.router(),
            stopping: stopping, overload: .metricsConnections, state: state, group: group, logger: logger)
    }

    /// The kitchen's board, on the socket systemd passed, else on `board.listen`; nil when neither is given.
    static func board(
        settings: BoardSettings, passed: SocketActivation.PassedSocket?, state: DaemonState,
        group: MultiThreadedEventLoopGroup, logger: Logger
    ) async throws -> HTTPEndpoint? {
        // A board page's events are written gathered, some hundred kilobytes at a time under load: its writer
        // waits (and the page counts as not keeping up) only when megabytes wait, not at NIO's default 64 KiB.
        try await bind(
            name: "board", path: "/board", address: settings.listen, passed: passed,
            router: BoardRoutes(state: state, settings: settings).router(), stopping: Locked(false),
            overload: .boardConnections, state: state, group: group, logger: logger,
            writeBuffer: .init(low: 1 << 20, high: 4 << 20))
    }

    private static func bind(
        name: String, path: String, address: ListenAddress?, passed: SocketActivation.PassedSocket?,
        router: Router<EndpointContext>, stopping: Locked<Bool>, overload: DaemonMetrics.OverloadReason,
        state: DaemonState, group: MultiThreadedEventLoopGroup, logger: Logger,
        writeBuffer: ChannelOptions.Types.WriteBufferWaterMark = .init(low: 32 * 1024, high: 64 * 1024)
    ) async throws -> HTTPEndpoint? {
        let socket: HTTPListener.Socket
        if let passed {
            socket = .passed(passed.descriptor)
        } else if let address {
            socket = .address(host: address.host, port: address.port)
        } else {
            return nil
        }
        let responder = router.buildResponder()
        let child = HTTP1Channel(
            responder: { request, writer, channel in
                let context = EndpointContext(source: .init(channel: channel, logger: logger))
                let response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch {
                    logger.error("\(name): \(request.method) \(request.uri.path) failed: \(error)")
                    response = .text(.internalServerError, "internal error\n")
                }
                try await writer.write(response: response.head, body: response.body)
            },
            configuration: .init(additionalChannelHandlers: [RequestGuardEvents()], idleTimeout: nil))
        let connections = Locked<[ObjectIdentifier: any Channel]>([:])
        let metrics = state.daemonMetrics
        let listener: HTTPListener
        do {
            listener = try await HTTPListener.bind(
                child, on: socket, name: name, group: group, backlog: 128, writeBuffer: writeBuffer, logger: logger
            ) { channel in
                let id = ObjectIdentifier(channel)
                let admitted = connections.withLock { open in
                    guard open.count < maximumConnections else { return false }
                    open[id] = channel
                    return true
                }
                let value = child.setup(channel: channel, logger: logger)
                guard admitted else {
                    metrics.overloaded(overload)
                    try? channel.pipeline.syncOperations.addHandler(RefusedConnection(), position: .first)
                    return value
                }
                channel.closeFuture.whenComplete { _ in _ = connections.withLock { $0.removeValue(forKey: id) } }
                // On the raw bytes, before the HTTP decoder buffers them.
                try? channel.pipeline.syncOperations.addHandler(HTTPRequestGuard(), position: .first)
                return value
            }
        } catch {
            throw ControlSocketServer.BindError(
                description:
                    "cannot listen for \(name) on \(address.map(\.description) ?? "the passed socket"): \(error)")
        }
        logger.info(
            passed != nil ? "serving \(name) on the socket passed by systemd" : "serving \(name)",
            metadata: [Logger.Metadata.Key(name): "http://\(listener.address)\(path)"])
        return HTTPEndpoint(listener: listener, connections: connections, stopping: stopping)
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await listener.serve()
        } onGracefulShutdown: { [listener, stopping, connections] in
            // Until the process exits, /readyz says it is stopping; then the listener and every connection close
            // (a board's stream ends with its connection).
            stopping.withLock { $0 = true }
            Task {
                await listener.close()
                for connection in connections.withLock({ Array($0.values) }) { try? await connection.close() }
            }
        }
    }
}

/// A request's context on the metrics and board listeners: Hummingbird's own storage and the connection (a board's
/// stream closes it when the page stops reading).
struct EndpointContext: RequestContext {
    /// Hummingbird's own storage.
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// What the metrics and board listeners answer around their routes: 404 naming what is served for any other path,
/// 405 with `Allow` for a method other than `GET` and `HEAD` (nothing there changes anything), `HEAD` as `GET`
/// without the body, and never cached.
struct ReadOnlyPaths: RouterMiddleware {
    typealias Context = EndpointContext

    /// The paths served.
    let paths: [String]
    /// The 404's text.
    let notFound: String
    /// Said after a 405's reason (`(the board is read-only)`), or empty.
    var methodNote = ""
    /// Added to every answer.
    var headers: HTTPFields = [:]

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        var response: Response
        if !paths.contains(path) {
            response = .text(.notFound, notFound)
        } else if request.method != .get, request.method != .head {
            response = .text(.methodNotAllowed, "method not allowed: \(path) takes GET and HEAD\(methodNote)\n")
            response.headers[.allow] = "GET, HEAD"
        } else {
            response = try await next(request, context)
        }
        response.headers.append(contentsOf: headers)
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return request.method == .head ? response.createHeadResponse() : response
    }
}

extension Router<EndpointContext> {
    /// Answers `GET` and `HEAD` of `path` with `handler` (``ReadOnlyPaths`` leaves the body out of `HEAD`'s).
    func getAndHead(
        _ path: RouterPath, use handler: @escaping @Sendable (Request, EndpointContext) async throws -> Response
    ) {
        get(path, use: handler)
        head(path, use: handler)
    }
}

extension Response {
    /// A plain-text answer.
    static func text(
        _ status: HTTPResponse.Status, _ text: String, contentType: String = "text/plain; charset=utf-8"
    ) -> Response {
        Response(
            status: status, headers: [.contentType: contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
