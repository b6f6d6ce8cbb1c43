import NIOCore
import NIOHTTPTypes

/// Closes a connection whose next request head does not arrive in time: the first within `first` of the
/// connection (a slow client dribbling its headers, slowloris), each later one within `next` of the last answer
/// (a keep-alive connection left idle); and one whose request body does not arrive within `body` of its head.
/// Added after the HTTP/1 decoder, so it sees whole heads, TLS or not.
///
/// A request moves the deadline, not a timer: one timer per connection fires at the deadline it was set for and, if
/// the deadline has moved on since, is set again for the new one, so a connection answering thousands of requests a
/// second schedules a timer a few times a minute instead of twice a request.
final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let first: TimeAmount
    private let next: TimeAmount
    private let body: TimeAmount
    /// When the connection is closed unless something moves it; nil while a request is answered.
    private var deadline: NIODeadline?
    /// The timer, and the deadline it fires at.
    private var timer: (task: Scheduled<Void>, at: NIODeadline)?

    init(first: TimeAmount, next: TimeAmount, body: TimeAmount) {
        self.first = first
        self.next = next
        self.body = body
    }

    func handlerAdded(context: ChannelHandlerContext) { arm(context, first) }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.task.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(context, body)
        case .end: deadline = nil
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context, next) }
        context.write(data, promise: promise)
    }

    /// Said by a handler after this one that wrote an answer's bytes itself, past the HTTP parts this one sees
    /// (``ChangesOnLoop``): the answer ended as its `.end` would have.
    struct AnswerWritten {}

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is AnswerWritten else { return context.triggerUserOutboundEvent(event, promise: promise) }
        arm(context, next)
        promise?.succeed()
    }

    private func arm(_ context: ChannelHandlerContext, _ delay: TimeAmount) {
        let deadline = NIODeadline.now() + delay
        self.deadline = deadline
        // A timer already set for no later than this fires first and sets itself again; one set for later (a
        // shorter delay now: the body's after the idle's) is replaced.
        if let timer, timer.at <= deadline { return }
        timer?.task.cancel()
        schedule(context, at: deadline)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let task = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.timer = nil
            guard let deadline = handler.deadline else { return }
            if deadline <= .now() {
                context.close(promise: nil)
            } else {
                handler.schedule(context, at: deadline)
            }
        }
        timer = (task, deadline)
    }
}
