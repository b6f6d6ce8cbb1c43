import NIOCore
import NIOHTTP1
import PizzaAPI
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

/// The board's listener: `GET /board` (the page), `GET /board/events` (the live stream, Server-Sent Events), and
/// `HEAD` of each; 405 for another method on those paths, 404 for any other path. Read-only: nothing here changes
/// an order.
///
/// The stream starts with a `snapshot` event (the orders on the board and the settings, with `id:` the newest
/// sequence number they reflect), then an `order` event per change (`id:` its sequence number). A browser that
/// reconnects sends `Last-Event-ID`, and the stream goes on from there, replayed from the audit log, with no snapshot
/// (so no ticket is lost or doubled across a daemon restart). A `tick` event every ``heartbeat`` carries the
/// daemon's clock (the page times tickets by it) and finds browsers that went away. A browser that does not keep up
/// is sent `dropped` and disconnected, as an `events.watch` client is: a slow screen never slows the kitchen.
final class BoardHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let paths = ["/board", "/board/events"]
    static let heartbeat: TimeAmount = .seconds(15)

    private let state: DaemonState
    private let settings: BoardSettings
    private var head: HTTPRequestHead?
    private var watcher: GatheredReader?
    private var ticker: RepeatedTask?

    init(state: DaemonState, settings: BoardSettings) {
        self.state = state
        self.settings = settings
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            context.triggerUserOutboundEvent(HTTPRequestGuard.Event.requestHeadReceived, promise: nil)
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopStreaming()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        stopStreaming()
        context.close(promise: nil)
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = String(request.uri.prefix { $0 != "?" })
        guard Self.paths.contains(path) else {
            return answer(request, .notFound, "not found: the board is at /board\n", context: context)
        }
        guard request.method == .GET || request.method == .HEAD else {
            var headers = HTTPHeaders()
            headers.add(name: "Allow", value: "GET, HEAD")
            return answer(
                request, .methodNotAllowed, "method not allowed: \(path) takes GET and HEAD (the board is read-only)\n",
                headers: headers, context: context)
        }
        if path == "/board" {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Security-Policy", value: BoardPage.contentSecurityPolicy)
            return answer(
                request, .ok, BoardPage.html, contentType: "text/html; charset=utf-8", headers: headers,
                context: context)
        }
        guard watcher == nil, request.method == .GET else {
            return answer(request, .ok, "", contentType: "text/event-stream", context: context)
        }
        stream(request, context: context)
    }

    /// Starts the event stream: the snapshot (or the replay after `Last-Event-ID`), then every change.
    private func stream(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Accel-Buffering", value: "no")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers))),
            promise: nil)
        let channel = context.channel
        let state = self.state
        // A reader of the daemon's one fan-out, which encodes each change once for every page and /v1/events reader.
        let watcher = GatheredReader(
            channel: channel, hideCustomer: !settings.showCustomer,
            write: { bytes in channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(bytes))) },
            onDrop: {
                state.watchers.subtract(1, ordering: .relaxed)
                state.logger.notice("dropped a slow board (a browser that stopped reading)")
            })
        self.watcher = watcher
        state.watchers.add(1, ordering: .relaxed)
        // Subscribed before the snapshot is read: a change in between is held, and skipped if the snapshot has it.
        state.events.subscribe(watcher)
        let resumeAfter = request.headers.first(name: "Last-Event-ID").flatMap { Int64($0) }
        let settings = self.settings
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        Task {
            var opening = "retry: 1000\n\n"
            var replayAfter = resumeAfter
            let latest = (try? state.store.replicationBacklog(after: 0).latestSeq) ?? 0
            if let after = resumeAfter, after > latest { replayAfter = nil }  // a database restored meanwhile
            let snapshot = Result { try state.store.boardSnapshot() }
            if case .failure(let error) = snapshot { state.logger.warning("board snapshot: \(error)") }
            if replayAfter == nil, let snapshot = try? snapshot.get() {
                watcher.skip(through: snapshot.seq)
                let orders = snapshot.orders.map { order in
                    var order = order
                    if !settings.showCustomer { order.customer = nil }
                    return order.wireText
                }
                opening +=
                    "id: \(snapshot.seq)\nevent: snapshot\ndata: {\"seq\":\(snapshot.seq),\"now\":\"\(Timestamp.now())\","
                    + "\"board\":\(settings.json),\"printers\":\(state.printersJSON()),"
                    + "\"unavailable\":\(JSONValue.array(state.repository.availability.unavailable.map(JSONValue.string)).jsonText),"
                    + "\"orders\":[\(orders.joined(separator: ","))]}\n\n"
            } else {
                opening += "event: settings\ndata: {\"now\":\"\(Timestamp.now())\",\"board\":\(settings.json)}\n\n"
            }
            try? await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: opening))))
            if let after = replayAfter {
                await BoardHTTPHandler.replay(
                    after: after, to: watcher, on: channel, from: state.store, settings: settings)
            }
            watcher.start()
            channel.eventLoop.execute { loopBound.value.startTicking(channel: channel) }
        }
    }

    /// Sends every change after `after` from the audit log, in chunks of 500 each written when the browser has read
    /// the one before; each order in the one wire form (old entries' nested items included), its customer left out
    /// where the board hides names. The live events it covers are not sent again.
    private static func replay(
        after: Int64, to watcher: GatheredReader, on channel: any Channel, from store: SQLiteOrderStore,
        settings: BoardSettings
    ) async {
        var cursor = after
        while !watcher.isDropped {
            guard let entries = try? store.auditEntries(after: cursor, limit: 500), !entries.isEmpty else { return }
            var chunk = ByteBuffer()
            for entry in entries {
                cursor = entry.seq
                if entry.orderID == nil, let kind = ShopChange.Kind(rawValue: entry.action) {
                    EventFanOut.write(
                        seq: entry.seq, at: entry.at, kind: entry.action, member: kind.eventMember, text: entry.after,
                        to: &chunk)
                    continue
                }
                guard var cart = try? Cart(wire: JSONParser.parse(entry.after)) else { continue }
                if !settings.showCustomer { cart.customer = nil }
                EventFanOut.write(seq: entry.seq, at: entry.at, kind: entry.action, order: cart.wireText, to: &chunk)
            }
            do {
                try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(chunk)))
            } catch {
                return
            }
            watcher.skip(through: cursor)
        }
    }

    private func startTicking(channel: any Channel) {
        guard watcher != nil, ticker == nil else { return }
        let state = state
        ticker = channel.eventLoop.scheduleRepeatedTask(initialDelay: Self.heartbeat, delay: Self.heartbeat) { _ in
            // Not written to a browser that stopped reading: the watcher drops it at the next change.
            guard channel.isWritable else { return }
            let tick = ByteBuffer(
                string: "event: tick\ndata: {\"now\":\"\(Timestamp.now())\",\"printers\":\(state.printersJSON())}\n\n")
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(tick)), promise: nil)
        }
    }

    private func stopStreaming() {
        ticker?.cancel()
        ticker = nil
        guard let watcher else { return }
        if !watcher.isDropped { state.watchers.subtract(1, ordering: .relaxed) }
        state.events.remove(watcher)
        self.watcher = nil
    }

    private func answer(
        _ request: HTTPRequestHead, _ status: HTTPResponseStatus, _ body: String,
        contentType: String = "text/plain; charset=utf-8", headers extra: HTTPHeaders = HTTPHeaders(),
        context: ChannelHandlerContext
    ) {
        var headers = extra
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        HTTPAnswer.send(request, status, body: body, contentType: contentType, headers: headers, context: context)
    }
}
