import NIOCore

/// The event stream: after `events.watch` the connection's ``EventWatcher`` is a repository subscriber until the
/// connection closes or the watcher is dropped for being slow.
extension ConnectionHandler {
    /// Turns the connection into an event stream, as the dispatcher checked it.
    func startWatching(_ subscription: RPCDispatcher.Subscription, context: ChannelHandlerContext) {
        let state = self.state
        let watcher = EventWatcher(channel: context.channel, status: subscription.status) {
            [logger = state.logger] dropped in
            // Unsubscribed at once, so the kitchen stops paying for it; the connection closes once the notice is
            // out (or after a grace period).
            state.repository.delegates.remove(dropped)
            state.watchers.subtract(1, ordering: .relaxed)
            logger.notice("dropped a slow event watcher")
        }
        self.watcher = watcher
        state.watchers.add(1, ordering: .relaxed)
        state.repository.delegates.add(watcher)
        let store = state.store
        Task(executorPreference: state.taskExecutor) {
            await watcher.start(replayingAfter: subscription.after, from: store)
        }
    }

    /// Ends the event stream, if there is one (the connection closed).
    func stopWatching() {
        guard let watcher else { return }
        if !watcher.isDropped { state.watchers.subtract(1, ordering: .relaxed) }
        state.repository.delegates.remove(watcher)
        self.watcher = nil
    }
}
