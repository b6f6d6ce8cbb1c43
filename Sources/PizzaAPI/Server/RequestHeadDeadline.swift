import NIOCore
import NIOHTTPTypes

/// Closes a connection whose next request head does not arrive in time: the first within `first` of the
/// connection (a slow client dribbling its headers, slowloris), each later one within `next` of the last answer
/// (a keep-alive connection left idle) and within `first` of its first byte (slowloris on a kept-alive
/// connection: ``RequestBytesWatch`` says when it begins); and one whose request body does not arrive within `body`
/// of its head. Added after the HTTP/1 decoder, so it sees whole heads, TLS or not.
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

    /// The connection's byte watch, before the decoder (none on an HTTP/2 stream: HTTP/2 has its own limits),
    /// looked up at the first answer (it is added after the setup that adds this handler).
    private var watch: RequestBytesWatch?
    private var lookedForWatch = false

    func handlerAdded(context: ChannelHandlerContext) { arm(context, first) }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.task.cancel()
        timer = nil
        watch?.onBytes = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            watch?.onBytes = nil
            arm(context, body)
        case .end: deadline = nil
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { answered(context) }
        context.write(data, promise: promise)
    }

    /// An answer ended: the next head within `next`, and within `first` of its first byte.
    private func answered(_ context: ChannelHandlerContext) {
        arm(context, next)
        if !lookedForWatch {
            lookedForWatch = true
            watch = try? context.pipeline.syncOperations.handler(type: RequestBytesWatch.self)
        }
        watch?.onBytes = { [weak self] in
            guard let self, self.deadline != nil else { return }
            self.arm(context, self.first)
        }
    }

    /// Said by a handler after this one that wrote an answer's bytes itself, past the HTTP parts this one sees
    /// (``ChangesOnLoop``): the answer ended as its `.end` would have.
    struct AnswerWritten {}

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is AnswerWritten else { return context.triggerUserOutboundEvent(event, promise: promise) }
        answered(context)
        promise?.succeed()
    }

    private func arm(_ context: ChannelHandlerContext, _ delay: TimeAmount) {
        let deadline = NIODeadline.now() + delay
        self.deadline = deadline
        // A timer already set for no later than this fires first and sets itself again; one set for later (a
        // shorter delay now: the head's after the idle's, the body's after the idle's) is replaced.
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

/// Sees a connection's bytes before the HTTP/1 decoder (after TLS), so that ``RequestHeadDeadline`` knows when a
/// kept-alive connection's next request begins: it then has `first` for its head, not the idle time. Costs a nil
/// check per read between requests' first bytes.
final class RequestBytesWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Called once, at the next bytes, then cleared; set by the deadline after each answer.
    var onBytes: (() -> Void)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let onBytes {
            self.onBytes = nil
            onBytes()
        }
        context.fireChannelRead(data)
    }
}
