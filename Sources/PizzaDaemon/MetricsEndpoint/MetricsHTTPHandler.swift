import NIOCore
import NIOHTTP1

/// Answers `GET /metrics`, `GET /healthz` and `GET /readyz` (and `HEAD` of each); 405 for another method on
/// those paths, 404 for any other path. CONTRACT section 10.
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the endpoint reports, read at each request.
    struct Source: Sendable {
        /// The Prometheus text exposition.
        let metrics: @Sendable () -> String
        /// Nil when ready, else why not (one line).
        let notReady: @Sendable () -> String?
    }

    static let paths = ["/metrics", "/healthz", "/readyz"]
    /// The Prometheus text format's content type (exposition format 0.0.4).
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    private let source: Source
    private var head: HTTPRequestHead?

    init(source: Source) { self.source = source }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            context.triggerUserOutboundEvent(HTTPRequestGuard.Event.requestHeadReceived, promise: nil)
        case .body:
            break  // nothing served takes a body; the guard bounds how much of one is read
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = String(request.uri.prefix { $0 != "?" })
        var status = HTTPResponseStatus.ok
        var contentType = "text/plain; charset=utf-8"
        var body: String
        var headers = HTTPHeaders()
        if !Self.paths.contains(path) {
            status = .notFound
            body = "not found: pizzad serves \(Self.paths.joined(separator: ", "))\n"
        } else if request.method != .GET, request.method != .HEAD {
            status = .methodNotAllowed
            headers.add(name: "Allow", value: "GET, HEAD")
            body = "method not allowed: \(path) takes GET and HEAD\n"
        } else {
            switch path {
            case "/metrics":
                contentType = Self.metricsContentType
                body = source.metrics()
            case "/readyz":
                if let reason = source.notReady() {
                    status = .serviceUnavailable
                    body = "not ready: \(reason)\n"
                } else {
                    body = "ready\n"
                }
            default:
                body = "ok\n"
            }
        }
        HTTPAnswer.send(request, status, body: body, contentType: contentType, headers: headers, context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
