import NIOCore

/// Backpressure: the daemon stops reading from a client whose answers it cannot send (its channel is not
/// writable) or who has ``RequestQueue/pauseReadingAt`` requests waiting, so the kernel's socket buffer pushes back
/// on the client, and reads again once both cleared.
extension ConnectionHandler {
    func read(context: ChannelHandlerContext) {
        if connection.readRequested(writable: context.channel.isWritable) { context.read() }
    }

    func resumeReadingIfPossible(_ context: ChannelHandlerContext) {
        if connection.resumeReading(writable: context.channel.isWritable) { context.read() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            processNext(context: context)
            resumeReadingIfPossible(context)
        }
        context.fireChannelWritabilityChanged()
    }
}
