import Logging
import NIOCore
import PizzaCore
import PizzaProtocol
import PizzaWire

#if canImport(Glibc)
    import Glibc
#endif

/// Serves one control-socket connection: reads request lines, answers them in order, and turns the connection
/// into an event stream after `events.watch`.
///
/// Requests on one connection run one at a time, which keeps answers in request order. Reads are answered at
/// once on the connection's event loop; changes are submitted to the repository from it and answered when the
/// writer calls back after their group commit; long scans run in a task. How reading
/// pauses so that memory stays bounded is in `ConnectionHandler+Backpressure.swift`, and the event stream in
/// `ConnectionHandler+Watching.swift`.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let dispatcher: RPCDispatcher
    let state: DaemonState
    let tracker: ConnectionTracker
    /// Where the writer leaves this loop's changes' outcomes.
    let handBack: AnswerHandBack
    // The four below are touched only on the connection's event loop, each access a plain read, write or mutation
    // of a value that calls nothing out, so no two can overlap: they are not checked for it at run time, a check
    // that cost some 60 instructions an access and a dozen accesses an order (PERFORMANCE.md, "Instructions per
    // order").

    /// The change under way, answered when its outcome is handed back.
    @exclusivity(unchecked) private var changeUnderWay: RPCRequest?
    /// What the writer calls with a change's outcome: made once a connection (it holds the handler, until the
    /// handler is removed), where a closure a change was a heap allocation for every order.
    @exclusivity(unchecked) private var changeCompletion: (@Sendable (AnswerHandBack.Outcome) -> Void)?
    /// What the connection is doing (see ``ConnectionState`` for the rules).
    @exclusivity(unchecked) var connection = ConnectionState()
    /// Cuts what the client sends into request lines, here rather than in a `ByteToMessageHandler` in front.
    @exclusivity(unchecked) private var lines = LineSplitter()
    var watcher: EventWatcher? {
        didSet { connection.watching = watcher != nil }
    }

    init(dispatcher: RPCDispatcher, state: DaemonState, tracker: ConnectionTracker, handBack: AnswerHandBack) {
        self.dispatcher = dispatcher
        self.state = state
        self.tracker = tracker
        self.handBack = handBack
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // The completion holds the handler; a change still under way keeps both until it is answered.
        changeCompletion = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        PeerCredentials.of(context.channel).whenComplete { result in
            let (handler, context) = loopBound.value
            switch result {
            case .success(let peer):
                handler.connection.peer = peer
                handler.processNext(context: context)
            case .failure(let error):
                handler.state.logger.warning("cannot read peer credentials, closing: \(error)")
                context.close(promise: nil)
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lines.append(unwrapInboundIn(data))
        do {
            while let line = try lines.next() { received(line, context: context) }
        } catch {
            refuseLongLine(context: context)
        }
    }

    /// Queues a request line, and starts it when nothing else runs.
    private func received(_ line: ByteBuffer, context: ChannelHandlerContext) {
        switch connection.received(line) {
        case .ignored, .queued(start: false): return
        case .queued(start: true): processNext(context: context)
        case .overloaded:
            state.daemonMetrics.overloaded(.queue)
            let message = "more than \(RequestQueue.capacity) requests waiting on one connection; wait for answers"
            write(context: context, RPCResponse.failure(id: nil, error: RPCError(.overloaded, message)))
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // A last line without its newline is still a request.
            if let line = lines.rest() { received(line, context: context) }
            connection.inputDidClose()
            closeIfDone(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func closeIfDone(context: ChannelHandlerContext) {
        if connection.closeIfDone() { context.close(promise: nil) }
    }

    /// Starts the queued requests, in order, until one has to wait (a change) or answers cannot be sent.
    func processNext(context: ChannelHandlerContext) {
        defer {
            closeIfDone(context: context)
            resumeReadingIfPossible(context)
        }
        // Answers that cannot be sent are not produced: wait until the client reads.
        while let line = connection.nextLine(writable: context.channel.isWritable), let peer = connection.peer {
            let request: RPCRequest
            let dispatch: RPCDispatcher.Dispatch
            // The role can change on SIGHUP; it is read per request.
            if let create = OrderCreateLine.read(line.readableBytesView, factory: state.factory) {
                // A till's order, read without a JSON tree; the rest, and any line it does not read, below.
                let (id, change) = create.parts()
                request = RPCRequest(id: id, method: OrderOperation.create.rawValue)
                dispatch = dispatcher.dispatch(change, for: request, peer: peer, role: state.role(of: peer))
            } else {
                do {
                    request = try RPCRequest.parse(line.readableBytesView)
                } catch {
                    write(context: context, RPCResponse.failure(id: error.id, error: error.error))
                    continue
                }
                dispatch = dispatcher.dispatch(request, peer: peer, role: state.role(of: peer))
            }
            switch consume dispatch {
            case .answered(let result):
                answer(request, result, context: context)
            case .subscribe(let subscription):
                // Subscribed before the answer is out: a client that acts on the answer (an order made at once)
                // must see that change; the watcher's own writes queue on this loop, after the answer.
                if watcher == nil { startWatching(subscription, context: context) }
                answer(request, .success(["watching": true]), context: context)
            case .submit(let submission):
                submit(submission, request, context: context)
            case .later(let run):
                let answer = begin(request, context: context)
                // A long scan: in a task on the global executor, not on this loop.
                Task(executorPreference: state.taskExecutor) { answer(await run()) }
            }
        }
    }

    /// Marks the connection busy with `request` (the next one waits) and returns what takes its answer, from the
    /// task that runs a long scan; `execute` hands it to the loop.
    private func begin(_ request: RPCRequest, context: ChannelHandlerContext) -> RPCDispatcher.Answer {
        connection.began()
        tracker.requestStarted()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        return { result in
            loopBound.eventLoop.execute {
                let (handler, context) = loopBound.value
                handler.finish(request, result, context: context)
            }
        }
    }

    /// Marks the connection busy with the change `request` asked for (the next one waits) and submits it; its
    /// answer is made on this loop when the writer hands the outcome back, through ``AnswerHandBack``.
    ///
    /// The outcome is always handed to the loop in a task, even when it comes at once on the loop (a change
    /// refused before it was queued): `finishChange` then runs after this `processNext`, not inside it.
    private func submit(
        _ submission: consuming RPCDispatcher.Submission, _ request: RPCRequest, context: ChannelHandlerContext
    ) {
        connection.began()
        tracker.requestStarted()
        changeUnderWay = request
        dispatcher.submit(submission, completion: completion(context: context))
    }

    private func completion(context: ChannelHandlerContext) -> @Sendable (AnswerHandBack.Outcome) -> Void {
        if let changeCompletion { return changeCompletion }
        let connection = AnswerHandBack.Connection((self, context), eventLoop: context.eventLoop)
        let completion: @Sendable (AnswerHandBack.Outcome) -> Void = { [handBack] outcome in
            handBack.deliver(outcome, to: connection)
        }
        // Kept only while the channel is open: handlerRemoved lets it go, and one kept after that would hold the
        // handler for good.
        if context.channel.isActive { changeCompletion = completion }
        return completion
    }

    /// The change under way was committed or refused: answers it and goes on with the next request. On the loop.
    func finishChange(_ outcome: AnswerHandBack.Outcome, context: ChannelHandlerContext) {
        guard let request = changeUnderWay else { preconditionFailure("an outcome with no change under way") }
        changeUnderWay = nil
        finish(request, dispatcher.answer(outcome, method: request.method), context: context)
    }

    private func finish(_ request: RPCRequest, _ result: Result<JSONValue, RPCError>, context: ChannelHandlerContext) {
        connection.finished()
        tracker.requestFinished()
        answer(request, result, context: context)
        processNext(context: context)
    }

    /// Sends the answer to `request` (none to a notification).
    private func answer(_ request: RPCRequest, _ result: Result<JSONValue, RPCError>, context: ChannelHandlerContext) {
        guard let id = request.id else { return }
        switch result {
        case .success(let value):
            let line = RPCResponse.success(id: id, result: value, allocator: context.channel.allocator)
            context.writeAndFlush(wrapOutboundOut(line), promise: nil)
        case .failure(let error): write(context: context, RPCResponse.failure(id: id, error: error))
        }
    }

    func write(context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopWatching()
        context.fireChannelInactive()
    }

    /// A line went past ``maximumLineLength``: answered, and the connection closed.
    private func refuseLongLine(context: ChannelHandlerContext) {
        connection.close()
        let message = "line longer than \(maximumLineLength) bytes; closing the connection"
        write(context: context, RPCResponse.failure(id: nil, error: RPCError(.invalidRequest, message)))
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let channelError = error as? ChannelError, channelError == .ioOnClosedChannel { return }
        if let ioError = error as? IOError, [ECONNRESET, EPIPE].contains(ioError.errnoCode) {
            context.close(promise: nil)
            return
        }
        state.logger.debug("connection error: \(error)")
        context.close(promise: nil)
    }
}
