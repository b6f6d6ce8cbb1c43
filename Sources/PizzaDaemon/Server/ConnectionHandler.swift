import Logging
import NIOCore
import NIOPosix
import PizzaProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Serves one control-socket connection: reads request lines, answers them in order, and turns the connection
/// into an event stream after `events.watch`.
///
/// Requests on one connection run one at a time, which keeps answers in request order. Reads are answered at
/// once on the connection's event loop; changes run in a task that waits for their group commit. Memory per connection is
/// bounded both ways: the daemon stops reading from a client whose answers it cannot send (its channel is not
/// writable) or who has `pauseReadingAt` requests waiting, so the kernel's socket buffer pushes back on the
/// client. What one read already brought in is still queued (NIO reads a bounded amount); only past
/// `maximumQueuedRequests`, a safety net, are lines answered `overloaded` and dropped.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let maximumQueuedRequests = 8192
    static let pauseReadingAt = 128

    private let dispatcher: RPCDispatcher
    private let state: DaemonState
    private let tracker: ConnectionTracker
    private var peer: Peer?
    private var role: Role = .none
    private var queue: CircularBuffer<ByteBuffer> = []
    private var busy = false
    /// The task executor for changes from this connection; see ``loopExecutor(_:)``.
    private var changeExecutor: EventLoopTaskExecutor?
    private var closing = false
    private var watcher: EventWatcher?
    /// The client shut its sending side (`echo … | socat`): answer what was sent, then close.
    private var inputClosed = false
    /// A read the channel asked for while reading was paused.
    private var readPending = false

    init(dispatcher: RPCDispatcher, state: DaemonState, tracker: ConnectionTracker) {
        self.dispatcher = dispatcher
        self.state = state
        self.tracker = tracker
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let credentials: EventLoopFuture<PeerCredentials>
        if let provider = context.channel as? any SocketOptionProvider {
            credentials = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        } else {
            credentials = context.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        credentials.whenComplete { result in
            let (handler, context) = loopBound.value
            switch result {
            case .success(let credentials):
                let peer = Peer(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
                handler.peer = peer
                handler.role = handler.state.access.role(of: peer)
            case .failure(let error):
                handler.state.logger.warning("cannot read peer credentials, closing: \(error)")
                context.close(promise: nil)
                return
            }
            handler.processNext(context: context)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let line = unwrapInboundIn(data)
        if queue.count >= Self.maximumQueuedRequests {
            state.daemonMetrics.overloaded(.queue)
            write(
                context: context,
                RPCResponse.failure(
                    id: nil,
                    error: RPCError(
                        .overloaded,
                        "more than \(Self.maximumQueuedRequests) requests waiting on one connection; wait for answers"))
            )
            return
        }
        queue.append(line)
        if !busy, peer != nil { processNext(context: context) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            inputClosed = true
            closeIfDone(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func closeIfDone(context: ChannelHandlerContext) {
        guard inputClosed, !busy, queue.isEmpty, watcher == nil, !closing else { return }
        closing = true
        context.close(promise: nil)
    }

    // MARK: Backpressure

    private func shouldPauseReading(_ context: ChannelHandlerContext) -> Bool {
        queue.count >= Self.pauseReadingAt || !context.channel.isWritable
    }

    func read(context: ChannelHandlerContext) {
        if shouldPauseReading(context) {
            readPending = true
        } else {
            context.read()
        }
    }

    private func resumeReadingIfPossible(_ context: ChannelHandlerContext) {
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

    private func processNext(context: ChannelHandlerContext) {
        defer {
            closeIfDone(context: context)
            resumeReadingIfPossible(context)
        }
        // Answers that cannot be sent are not produced: wait until the client reads.
        while !busy, !closing, context.channel.isWritable, let line = queue.popFirst() {
            if line.readableBytes == 0 || line.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let request: RPCRequest
            do {
                request = try RPCRequest.parse(line.readableBytesView)
            } catch {
                write(context: context, RPCResponse.failure(id: error.id, error: error.error))
                continue
            }
            guard let peer else { return }
            // Role can change on SIGHUP; read it per request.
            role = state.access.role(of: peer)
            let run: @Sendable () async -> Result<JSONValue, RPCError>
            let onLoop: Bool
            switch dispatcher.dispatch(request, peer: peer, role: role) {
            case .answered(let result):
                answer(request, result, context: context)
                continue
            case .subscribe(let subscription):
                answer(request, .success(["watching": true]), context: context)
                if watcher == nil { startWatching(subscription, context: context) }
                continue
            case .later(let loop, let body):
                (onLoop, run) = (loop, body)
            }
            busy = true
            tracker.requestStarted()
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            Task(executorPreference: onLoop ? loopExecutor(context.eventLoop) : nil) {
                let result = await run()
                if loopBound.eventLoop.inEventLoop {
                    let (handler, context) = loopBound.value
                    handler.finish(request, result, context: context)
                } else {
                    loopBound.eventLoop.execute {
                        let (handler, context) = loopBound.value
                        handler.finish(request, result, context: context)
                    }
                }
            }
        }
    }

    /// The task executor for this connection's changes (its event loop), made at the first change.
    private func loopExecutor(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        if let executor = changeExecutor { return executor }
        let executor = EventLoopTaskExecutor(eventLoop)
        changeExecutor = executor
        return executor
    }

    private func finish(_ request: RPCRequest, _ result: Result<JSONValue, RPCError>, context: ChannelHandlerContext) {
        busy = false
        tracker.requestFinished()
        answer(request, result, context: context)
        processNext(context: context)
    }

    /// Sends the answer to `request` (none to a notification).
    private func answer(_ request: RPCRequest, _ result: Result<JSONValue, RPCError>, context: ChannelHandlerContext) {
        guard let id = request.id else { return }
        switch result {
        case .success(let value): write(context: context, RPCResponse.success(id: id, result: value))
        case .failure(let error): write(context: context, RPCResponse.failure(id: id, error: error))
        }
    }

    /// Turns the connection into an event stream, as the dispatcher checked it (`events.watch`).
    private func startWatching(_ subscription: RPCDispatcher.Subscription, context: ChannelHandlerContext) {
        let state = self.state
        let watcher = EventWatcher(channel: context.channel, status: subscription.status) {
            [logger = state.logger] dropped in
            state.repository.delegates.remove(dropped)
            // Unsubscribed at once, so the kitchen stops paying for it; the connection closes once the notice is
            // out (or after a grace period).
            state.watchers.subtract(1, ordering: .relaxed)
            logger.notice("dropped a slow event watcher")
        }
        self.watcher = watcher
        state.watchers.add(1, ordering: .relaxed)
        state.repository.delegates.add(watcher)
        let store = state.store
        Task { await watcher.start(replayingAfter: subscription.after, from: store) }
    }

    private func write(context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let watcher {
            if !watcher.isDropped { state.watchers.subtract(1, ordering: .relaxed) }
            state.repository.delegates.remove(watcher)
            self.watcher = nil
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is LineFrameDecoder.LineTooLong {
            closing = true
            write(
                context: context,
                RPCResponse.failure(
                    id: nil,
                    error: RPCError(
                        .invalidRequest, "line longer than \(maximumLineLength) bytes; closing the connection")))
            context.close(promise: nil)
            return
        }
        if let channelError = error as? ChannelError, channelError == .ioOnClosedChannel { return }
        if let ioError = error as? IOError, [ECONNRESET, EPIPE].contains(ioError.errnoCode) {
            context.close(promise: nil)
            return
        }
        state.logger.debug("connection error: \(error)")
        context.close(promise: nil)
    }
}
