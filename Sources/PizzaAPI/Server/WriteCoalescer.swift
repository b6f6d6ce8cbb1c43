import NIOCore

/// Joins the writes between two flushes into one before TLS, so that an answer (an HTTP/1.1 head and its body, or an
/// HTTP/2 flush's frames) is sealed as one TLS record with one `SSL_write`, not one per part. Added right after the
/// TLS handler.
final class WriteCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private var pending: ByteBuffer?
    private var promises: [EventLoopPromise<Void>] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .byteBuffer(var buffer):
            if pending == nil {
                pending = buffer
            } else {
                pending?.writeBuffer(&buffer)
            }
            if let promise { promises.append(promise) }
        case .fileRegion:
            writePending(context)
            context.write(data, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        writePending(context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // Writes not flushed before a close are failed, as the channel fails its own.
        if mode != .input {
            pending = nil
            let failed = promises
            promises = []
            for write in failed { write.fail(ChannelError.ioOnClosedChannel) }
        }
        context.close(mode: mode, promise: promise)
    }

    private func writePending(_ context: ChannelHandlerContext) {
        guard let buffer = pending else { return }
        pending = nil
        let written = promises
        promises = []
        switch written.count {
        case 0: context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: nil)
        case 1: context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: written[0])
        default:
            let all = context.eventLoop.makePromise(of: Void.self)
            all.futureResult.whenComplete { result in
                for promise in written { promise.completeWith(result) }
            }
            context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: all)
        }
    }
}
