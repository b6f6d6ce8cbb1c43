import NIOCore

/// Backpressure: the daemon stops reading from a client whose answers it cannot send (its channel is not
/// writable) or who has ``RequestQueue/pauseReadingAt`` requests waiting, so the kernel's socket buffer pushes back
/// on the client, and reads again once both cleared.
extension ConnectionHandler {
    private func shouldPauseReading(_ context: ChannelHandlerContext) -> Bool {
        queue.wantsPause || !context.channel.isWritable
    }

    func read(context: ChannelHandlerContext) {
        if shouldPauseReading(context) {
            readPending = true
        } else {
            context.read()
        }
    }

    func resumeReadingIfPossible(_ context: ChannelHandlerContext) {
        guard readPending, !shouldPauseReading(context) else { return }
        readPending = false
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            processNext(context: context)
            resumeReadingIfPossible(context)
        }
        context.fireChannelWritabilityChanged()
    }
}
