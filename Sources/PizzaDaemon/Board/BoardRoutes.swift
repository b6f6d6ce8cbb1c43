import HTTPTypes
import Hummingbird
import NIOCore
import PizzaAPI
import PizzaCore
import PizzaHTTPEdges
import PizzaStorage
import PizzaWire

/// The board's routes: `GET /board` (the page), `GET /board/events` (the live stream, Server-Sent Events), and
/// `HEAD` of each; 405 for another method on those paths, 404 for any other path. Read-only: nothing here changes
/// an order.
///
/// The stream starts with a `snapshot` event (the orders on the board and the settings, with `id:` the newest
/// sequence number they reflect), then an `order` event per change (`id:` its sequence number). A browser that
/// reconnects sends `Last-Event-ID`, and the stream goes on from there, replayed from the audit log, with no snapshot
/// (so no ticket is lost or doubled across a daemon restart). A `tick` event every ``heartbeat`` carries the
/// daemon's clock (the page times tickets by it) and finds browsers that went away. A browser that does not keep up
/// is sent `dropped` and disconnected, as an `events.watch` client is: a slow screen never slows the kitchen.
struct BoardRoutes: Sendable {
    static let paths = ["/board", "/board/events"]
    static let heartbeat: Duration = .seconds(15)

    let state: DaemonState
    let settings: BoardSettings

    func router() -> Router<EndpointContext> {
        let router = Router(context: EndpointContext.self)
        router.add(
            middleware: ReadOnlyPaths(
                paths: Self.paths, notFound: "not found: the board is at /board\n",
                methodNote: " (the board is read-only)", headers: [.xContentTypeOptions: "nosniff"]))
        router.getAndHead("/board") { _, _ in
            var page = Response.text(.ok, BoardPage.html, contentType: "text/html; charset=utf-8")
            page.headers[.contentSecurityPolicy] = BoardPage.contentSecurityPolicy
            return page
        }
        router.head("/board/events") { _, _ in Response(status: .ok, headers: Self.streamHeaders) }
        router.get("/board/events") { request, context in events(request, channel: context.channel) }
        return router
    }

    static let streamHeaders: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
        HTTPField.Name("X-Accel-Buffering")!: "no",
    ]

    /// The event stream: the snapshot (or the replay after `Last-Event-ID`), then every change, from a reader of the
    /// daemon's one fan-out (which encodes each change once for every page and `/v1/events` reader).
    private func events(_ request: Request, channel: any Channel) -> Response {
        let state = state
        let settings = settings
        let resumeAfter = request.headers[.lastEventID].flatMap { Int64($0) }
        let counted = Locked(true)
        let uncount: @Sendable () -> Void = {
            let wasCounted = counted.withLock { counted in
                let was = counted
                counted = false
                return was
            }
            if wasCounted { state.watchers.subtract(1, ordering: .relaxed) }
        }
        // Subscribed before the snapshot is read: a change in between is held, and skipped if the snapshot has it.
        let reader = state.events.subscribe(device: nil, hideCustomer: !settings.showCustomer) {
            uncount()
            state.logger.notice("dropped a slow board (a browser that stopped reading)")
            // A browser that never reads again would keep its connection, and the writer waiting on it, forever.
            channel.eventLoop.scheduleTask(in: .seconds(10)) { channel.close(promise: nil) }
        }
        state.watchers.add(1, ordering: .relaxed)
        // A browser gone ends the stream at once, not at the next change.
        channel.closeFuture.whenComplete { _ in
            state.events.remove(reader)
            uncount()
        }
        let body = ResponseBody { writer in
            defer {
                state.events.remove(reader)
                uncount()
            }
            let (opening, replayAfter) = Self.opening(resumeAfter: resumeAfter, reader: reader, state, settings)
            try await writer.write(ByteBuffer(string: opening))
            if let after = replayAfter {
                try await Self.replay(after: after, to: reader, from: state.store, settings: settings) { chunk in
                    try await writer.write(chunk)
                }
            }
            let ticker = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: Self.heartbeat)
                    _ = reader.receive(
                        EventBatch(
                            comment:
                                "event: tick\ndata: {\"now\":\"\(Timestamp.now())\",\"printers\":\(state.printersJSON())}\n\n"
                        ))
                }
            }
            defer { ticker.cancel() }
            while let batches = await reader.next() { try await writer.write(contentsOf: batches) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: Self.streamHeaders, body: body)
    }

    /// The stream's first bytes: the snapshot, or only the settings when it resumes after `resumeAfter` (then also
    /// the sequence number to replay after; none when the browser's is past the database's, a database restored
    /// meanwhile).
    private static func opening(
        resumeAfter: Int64?, reader: EventFanOut.Reader, _ state: DaemonState, _ settings: BoardSettings
    ) -> (String, replayAfter: Int64?) {
        var opening = "retry: 1000\n\n"
        var replayAfter = resumeAfter
        let latest = (try? state.store.replicationBacklog(after: 0).latestSeq) ?? 0
        if let after = resumeAfter, after > latest { replayAfter = nil }
        let snapshot = Result { try state.store.boardSnapshot() }
        if case .failure(let error) = snapshot { state.logger.warning("board snapshot: \(error)") }
        if replayAfter == nil, let snapshot = try? snapshot.get() {
            reader.skip(through: snapshot.seq)
            let orders = snapshot.orders.map { order in
                var order = order
                if !settings.showCustomer { order.customer = nil }
                return order.wireText
            }
            let unavailable = JSONValue.array(state.repository.availability.unavailable.map(JSONValue.string))
            opening +=
                "id: \(snapshot.seq)\nevent: snapshot\ndata: {\"seq\":\(snapshot.seq),\"now\":\"\(Timestamp.now())\","
                + "\"board\":\(settings.json),\"printers\":\(state.printersJSON()),"
                + "\"unavailable\":\(unavailable.jsonText),\"orders\":[\(orders.joined(separator: ","))]}\n\n"
        } else {
            opening += "event: settings\ndata: {\"now\":\"\(Timestamp.now())\",\"board\":\(settings.json)}\n\n"
        }
        return (opening, replayAfter)
    }

    /// Sends every change after `after` from the audit log, in chunks of 500 each written when the browser has read
    /// the one before; each order in the one wire form (old entries' nested items included), its customer left out
    /// where the board hides names. The live events it covers are not sent again.
    private static func replay(
        after: Int64, to reader: EventFanOut.Reader, from store: SQLiteOrderStore, settings: BoardSettings,
        write: (ByteBuffer) async throws -> Void
    ) async throws {
        var cursor = after
        while let entries = try? store.auditEntries(after: cursor, limit: 500), !entries.isEmpty {
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
            try await write(chunk)
            reader.skip(through: cursor)
        }
    }
}
