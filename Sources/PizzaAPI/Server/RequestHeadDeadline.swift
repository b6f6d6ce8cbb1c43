import NIOCore
import NIOHTTPTypes

/// Closes a connection whose next request head does not arrive in time: the first within `first` of the
/// connection (a slow client dribbling its headers, slowloris), each later one within `next` of the last answer
/// (a keep-alive connection left idle); and one whose request body does not arrive within `body` of its head.
/// Added after the HTTP/1 decoder, so it sees whole heads, TLS or not.
final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let first: TimeAmount
    private let next: TimeAmount
    private let body: TimeAmount
    private var deadline: Scheduled<Void>?

    init(first: TimeAmount, next: TimeAmount, body: TimeAmount) {
        self.first = first
        self.next = next
        self.body = body
    }

    func handlerAdded(context: ChannelHandlerContext) { arm(context, first) }

    func handlerRemoved(context: ChannelHandlerContext) { deadline?.cancel() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(context, body)
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context, next) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ delay: TimeAmount) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
    }
}
