import Logging
import NIOCore
import NIOPosix
import PizzaProtocol
import PizzaWire

#if canImport(Glibc)
    import Glibc
#endif

/// Answers every request `overloaded` and closes: for connections past `socket.maxConnections`.
final class OverloadedHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let limit: Int
    let metrics: DaemonMetrics
    init(limit: Int, metrics: DaemonMetrics) {
        self.limit = limit
        self.metrics = metrics
    }

    func channelActive(context: ChannelHandlerContext) {
        metrics.overloaded(.connections)
        let error = RPCError(.overloaded, "pizzad is at its limit of \(limit) connections; try again shortly")
        let channel = context.channel
        context.writeAndFlush(
            wrapOutboundOut(channel.allocator.buffer(bytes: RPCResponse.failure(id: nil, error: error)))
        )
        .whenComplete { _ in channel.close(promise: nil) }
    }
}
