import NIOCore
import NIOHTTPTypes

/// Cuts off what a scraper never does, before the HTTP parser buffers it: a request over
/// ``maximumRequestBytes`` (431, or 413 once its head was read), a request that has not arrived in full
/// ``requestTimeout`` after its first byte (or after connecting) (408), and a keep-alive connection idle for
/// ``idleTimeout`` (closed). First in the pipeline, on raw bytes; ``RequestGuardEvents``, after the HTTP decoder,
/// tells it where each request begins and ends with the outbound ``Event``s.
final class HTTPRequestGuard: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// What the request handler tells the guard.
    enum Event: Sendable {
        /// A request's head was parsed: its timer stops.
        case requestHeadReceived
        /// A response was written: the connection is idle until the next request.
        case responseSent
    }

    /// The most bytes a request may take (a Prometheus scrape's is some 300).
    static let maximumRequestBytes = 8 * 1024
    /// How long a request may take to arrive once begun, and a new connection to send its first one.
    static let requestTimeout: TimeAmount = .seconds(10)
    /// How long a kept-alive connection may stay idle between requests (Prometheus scrapes every 15 to 60 s).
    static let idleTimeout: TimeAmount = .seconds(90)

    private var bytes = 0
    private var inRequest = false
    private var idleBetweenRequests = false
    private var timer: Scheduled<Void>?
    private var rejected = false

    func channelActive(context: ChannelHandlerContext) {
        arm(context: context, after: Self.requestTimeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !rejected else { return }
        let buffer = unwrapInboundIn(data)
        if idleBetweenRequests {
            idleBetweenRequests = false
            arm(context: context, after: Self.requestTimeout)
        }
        bytes += buffer.readableBytes
        if bytes > Self.maximumRequestBytes {
            reject(
                context: context,
                status: inRequest ? "413 Content Too Large" : "431 Request Header Fields Too Large",
                reason: "a request may take at most \(Self.maximumRequestBytes) bytes")
            return
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let event = event as? Event else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch event {
        case .requestHeadReceived:
            timer?.cancel()
            timer = nil
            bytes = 0
            inRequest = true
        case .responseSent:
            inRequest = false
            idleBetweenRequests = true
            arm(context: context, after: Self.idleTimeout)
        }
        promise?.succeed()
    }

    private func arm(context: ChannelHandlerContext, after delay: TimeAmount) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.timedOut(context: context)
        }
    }

    private func timedOut(context: ChannelHandlerContext) {
        timer = nil
        if idleBetweenRequests {
            context.close(promise: nil)
        } else {
            reject(context: context, status: "408 Request Timeout", reason: "the request did not arrive in time")
        }
    }

    /// Answers `status` straight on the socket (below the HTTP encoder) and closes.
    private func reject(context: ChannelHandlerContext, status: String, reason: String) {
        rejected = true
        timer?.cancel()
        timer = nil
        let body = reason + "\n"
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
            + "\(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(context.channel.allocator.buffer(string: response))))
            .whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Tells ``HTTPRequestGuard`` where each request begins (its head parsed) and ends (its answer's end written); in
/// Hummingbird's HTTP channel after the decoder.
final class RequestGuardEvents: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            context.triggerUserOutboundEvent(HTTPRequestGuard.Event.requestHeadReceived, promise: nil)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        context.write(data, promise: promise)
        context.triggerUserOutboundEvent(HTTPRequestGuard.Event.responseSent, promise: nil)
    }
}
