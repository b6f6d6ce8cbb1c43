import NIOCore
import NIOPosix
import PizzaProtocol
import PizzaWire

#if canImport(Glibc)
    import Glibc
#endif

/// Fails the connection when a request gets no response within the timeout.
final class ResponseTimeoutHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let timeout: TimeAmount
    private let socket: String
    private var pending: Scheduled<Void>?

    init(timeout: TimeAmount, socket: String) {
        self.timeout = timeout
        self.socket = socket
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        pending?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let socket = self.socket
        let timeout = self.timeout
        pending = context.eventLoop.scheduleTask(in: timeout) {
            let context = loopBound.value
            context.fireErrorCaught(
                ClientError(kind: .timedOut, socket: socket, detail: "waited \(timeout.nanoseconds / 1_000_000_000)s"))
            context.close(promise: nil)
        }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending?.cancel()
        pending = nil
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.cancel()
        context.fireChannelInactive()
    }
}
