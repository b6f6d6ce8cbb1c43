import NIOCore
import NIOHTTP1

/// A whole response with a body, as the metrics endpoint and the board's page answer: the headers both always
/// send, the body unless the request was `HEAD`, the connection closed unless kept alive, and the request guard
/// told the response is out.
enum HTTPAnswer {
    static func send(
        _ request: HTTPRequestHead, _ status: HTTPResponseStatus, body: String, contentType: String,
        headers extra: HTTPHeaders = HTTPHeaders(), context: ChannelHandlerContext
    ) {
        let buffer = context.channel.allocator.buffer(string: body)
        var headers = extra
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(buffer.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: request.version, status: status, headers: headers)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        if request.method != .HEAD {
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
        context.triggerUserOutboundEvent(HTTPRequestGuard.Event.responseSent, promise: nil)
    }
}
