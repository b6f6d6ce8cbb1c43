import Foundation
import NIOCore
import NIOHTTP1
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

/// One `events.watch` connection, subscribed to the repository as one more weak delegate.
///
/// Events go out as `{"jsonrpc":"2.0","method":"event","params":{seq, at, kind, order}}`. A watcher whose client
/// does not read fast enough (its channel stops being writable) gets a `dropped` notice and is disconnected,
/// so a slow screen never slows the kitchen. The connection handler holds the watcher; when the connection
/// goes, so does the subscription.
final class EventWatcher: OrderRepositoryDelegate {
    /// How events are written: JSON-RPC notifications on the control socket, or Server-Sent Events on the board's
    /// HTTP listener (`id:` the sequence number, so a browser resumes with `Last-Event-ID`).
    enum Encoding: Sendable {
        case rpc
        /// `hideCustomer` leaves the customer's name out of every order (`board.showCustomer: false`).
        case serverSentEvents(hideCustomer: Bool)
    }

    private let channel: any Channel
    private let status: OrderStatus?
    private let encoding: Encoding
    private let state = Locked(State())
    private let onDrop: @Sendable (EventWatcher) -> Void

    private struct State {
        /// While replaying from the audit log, live events wait here.
        var replaying = true
        var buffered: [OrderChange] = []
        var lastSent: Int64 = 0
        var dropped = false
        /// Server-Sent Events waiting for the connection's loop to write them.
        var pending: [UInt8] = []
        var flushScheduled = false
    }

    init(
        channel: any Channel, status: OrderStatus?, encoding: Encoding = .rpc,
        onDrop: @escaping @Sendable (EventWatcher) -> Void
    ) {
        self.channel = channel
        self.status = status
        self.encoding = encoding
        self.onDrop = onDrop
    }

    func repository(didCommit change: OrderChange, latency: Duration) {
        guard matches(change.before?.status, change.after.status) else { return }
        let send: Bool = state.withLock { state in
            if state.dropped { return false }
            if state.replaying {
                state.buffered.append(change)
                return false
            }
            return true
        }
        if send { deliver(change.sequence, event(for: change)) }
    }

    /// Sends every change after `after` from the audit log, then the live ones that arrived meanwhile.
    func start(replayingAfter after: Int64?, from store: SQLiteOrderStore) async {
        if let after {
            var cursor = after
            while !isDropped {
                guard let entries = try? store.auditEntries(after: cursor, limit: 500), !entries.isEmpty else { break }
                for entry in entries {
                    // Read through the one wire form (old entries' nested items included), written back the same way.
                    guard let cart = try? Cart(wire: JSONParser.parse(entry.after)) else { continue }
                    let before = entry.before.flatMap { try? JSONParser.parse($0)["status"]?.stringValue }
                    if matches(before.flatMap(OrderStatus.init(rawValue:)), cart.status) {
                        deliver(entry.seq, event(seq: entry.seq, at: entry.at, kind: entry.action, cart: cart))
                    } else {
                        state.withLock { $0.lastSent = max($0.lastSent, entry.seq) }
                    }
                    cursor = entry.seq
                }
            }
        }
        while true {
            let pending: [OrderChange] = state.withLock { state in
                let pending = state.buffered
                state.buffered.removeAll()
                if pending.isEmpty { state.replaying = false }
                return pending
            }
            if pending.isEmpty { return }
            for change in pending.sorted(by: { $0.sequence < $1.sequence }) {
                deliver(change.sequence, event(for: change))
            }
        }
    }

    /// Sends nothing up to `seq`: what a snapshot sent before the stream began already holds.
    func skip(through seq: Int64) { state.withLock { $0.lastSent = max($0.lastSent, seq) } }

    /// Whether the watcher was dropped for not keeping up.
    var isDropped: Bool { state.withLock { $0.dropped } }

    private func matches(_ before: OrderStatus?, _ after: OrderStatus) -> Bool {
        guard let status else { return true }
        return before == status || after == status
    }

    private func deliver(_ seq: Int64, _ event: @autoclosure () -> [UInt8]) {
        let proceed = state.withLock { state -> Bool in
            if state.dropped || seq <= state.lastSent { return false }
            state.lastSent = seq
            return true
        }
        guard proceed else { return }
        guard channel.isWritable else { return drop(after: seq - 1) }
        switch encoding {
        case .rpc: channel.writeAndFlush(ByteBuffer(bytes: event()), promise: nil)
        case .serverSentEvents:
            // Gathered and written by one task on the connection's loop, however many changes come meanwhile: a
            // task per change and page queued faster than one loop thread could write them (50 pages at full speed
            // held over a gigabyte in queued tasks).
            let bytes = event()
            let schedule = state.withLock { state -> Bool? in
                if state.pending.count + bytes.count > Self.maximumPending { return nil }
                state.pending += bytes
                if state.flushScheduled { return false }
                state.flushScheduled = true
                return true
            }
            guard let schedule else { return drop(after: seq - 1) }
            // A board is read by people: a change shows within ``gatherFor``, and at full speed a page gets a few
            // dozen writes a second instead of one per change.
            if schedule { channel.eventLoop.scheduleTask(in: Self.gatherFor) { self.flushPending() } }
        }
    }

    /// How long a board page's events are gathered before they are written.
    static let gatherFor: TimeAmount = .milliseconds(25)

    /// The most a board page may have waiting to be written before it counts as not keeping up.
    static let maximumPending = 1 << 20

    /// On the connection's loop: writes what has gathered, in one part of the response.
    private func flushPending() {
        let bytes = state.withLock { state -> [UInt8] in
            defer {
                state.pending.removeAll(keepingCapacity: true)
                state.flushScheduled = false
            }
            return state.pending
        }
        guard !bytes.isEmpty, !isDropped else { return }
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes))), promise: nil)
    }

    /// Tells the client it did not keep up (after event `lastSeq`), unsubscribes it and closes the connection.
    private func drop(after lastSeq: Int64) {
        let first = state.withLock { state -> Bool in
            defer { state.dropped = true }
            return !state.dropped
        }
        guard first else { return }
        let notice: [UInt8]
        switch encoding {
        case .rpc:
            notice = RPCResponse.notification(
                method: "dropped",
                params: ["reason": "the watcher did not keep up; reconnect with after", "lastSeq": .int(lastSeq)])
        case .serverSentEvents:
            notice = Array("event: dropped\ndata: {\"lastSeq\":\(lastSeq)}\n\n".utf8)
        }
        write(notice).whenComplete { [channel] _ in channel.close(promise: nil) }
        // A client that never reads would keep the notice, and the buffer before it, forever.
        channel.eventLoop.scheduleTask(in: .seconds(10)) { [channel] in channel.close(promise: nil) }
        onDrop(self)
    }

    /// Writes `bytes` to the connection: as they are on the control socket, as a part of the response's body on the
    /// board's HTTP listener.
    private func write(_ bytes: [UInt8]) -> EventLoopFuture<Void> {
        switch encoding {
        case .rpc: channel.writeAndFlush(ByteBuffer(bytes: bytes))
        case .serverSentEvents:
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes))))
        }
    }

    private func event(for change: OrderChange) -> [UInt8] {
        switch encoding {
        case .rpc:
            RPCResponse.event(
                seq: change.sequence, at: change.atText, kind: change.kind.rawValue, orderText: change.afterWireText)
        case .serverSentEvents(let hideCustomer):
            hideCustomer
                ? event(seq: change.sequence, at: change.atText, kind: change.kind.rawValue, cart: change.after)
                : Self.serverSentEvent(
                    seq: change.sequence, at: change.atText, kind: change.kind.rawValue,
                    orderText: change.afterWireText)
        }
    }

    /// One `order` event; one `data:` line, as the JSON holds no raw newline (the writer escapes them in strings).
    private static func serverSentEvent(seq: Int64, at: String, kind: String, orderText: String) -> [UInt8] {
        var output = Array("id: \(seq)\nevent: order\ndata: ".utf8)
        output += RPCResponse.eventParams(seq: seq, at: at, kind: kind, orderText: orderText)
        output += Array("\n\n".utf8)
        return output
    }

    private func event(seq: Int64, at: String, kind: String, cart: Cart) -> [UInt8] {
        switch encoding {
        case .rpc:
            return RPCResponse.event(seq: seq, at: at, kind: kind, orderText: cart.wireText)
        case .serverSentEvents(let hideCustomer):
            var cart = cart
            if hideCustomer { cart.customer = nil }
            return Self.serverSentEvent(seq: seq, at: at, kind: kind, orderText: cart.wireText)
        }
    }

}
