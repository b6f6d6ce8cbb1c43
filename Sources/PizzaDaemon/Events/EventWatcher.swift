import Foundation
import NIOCore
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

/// One `events.watch` connection on the control socket, subscribed to the repository as one more weak delegate.
/// (The board's pages and `/v1/events` read the daemon's one `EventFanOut` instead.)
///
/// Events go out as `{"jsonrpc":"2.0","method":"event","params":{seq, at, kind, order}}`. A watcher whose client
/// does not read fast enough (its channel stops being writable) gets a `dropped` notice and is disconnected,
/// so a slow screen never slows the kitchen. The connection handler holds the watcher; when the connection
/// goes, so does the subscription.
final class EventWatcher: OrderRepositoryDelegate {
    private let channel: any Channel
    private let status: OrderStatus?
    private let state = Locked(State())
    private let onDrop: @Sendable (EventWatcher) -> Void

    private struct State {
        /// While replaying from the audit log, live events wait here.
        var replaying = true
        var buffered: [(seq: Int64, event: @Sendable () -> [UInt8])] = []
        var lastSent: Int64 = 0
        var dropped = false
    }

    init(channel: any Channel, status: OrderStatus?, onDrop: @escaping @Sendable (EventWatcher) -> Void) {
        self.channel = channel
        self.status = status
        self.onDrop = onDrop
    }

    func repository(didCommit change: OrderChange, latency: Duration) {
        guard matches(change.before?.status, change.after.status) else { return }
        live(change.sequence) { Self.event(for: change) }
    }

    /// A change that belongs to no order (an item's availability, a Z report): sent to a watcher of every status.
    func repository(didCommit change: ShopChange) {
        guard status == nil else { return }
        live(change.sequence) { Self.event(for: change) }
    }

    /// Sends a live event, or keeps it while the replay runs.
    private func live(_ seq: Int64, _ event: @escaping @Sendable () -> [UInt8]) {
        let send: Bool = state.withLock { state in
            if state.dropped { return false }
            if state.replaying {
                state.buffered.append((seq, event))
                return false
            }
            return true
        }
        if send { deliver(seq, event()) }
    }

    /// Sends every change after `after` from the audit log, then the live ones that arrived meanwhile.
    func start(replayingAfter after: Int64?, from store: SQLiteOrderStore) async {
        if let after {
            var cursor = after
            while !isDropped {
                guard let entries = try? store.auditEntries(after: cursor, limit: 500), !entries.isEmpty else { break }
                for entry in entries {
                    if entry.orderID == nil, let kind = ShopChange.Kind(rawValue: entry.action) {
                        if status == nil {
                            deliver(
                                entry.seq,
                                RPCResponse.shopEvent(
                                    seq: entry.seq, at: entry.at, kind: entry.action, member: kind.eventMember,
                                    text: entry.after))
                        }
                        cursor = entry.seq
                        continue
                    }
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
            let pending = state.withLock { state in
                let pending = state.buffered
                state.buffered.removeAll()
                if pending.isEmpty { state.replaying = false }
                return pending
            }
            if pending.isEmpty { return }
            for (seq, event) in pending.sorted(by: { $0.seq < $1.seq }) {
                deliver(seq, event())
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
        channel.writeAndFlush(ByteBuffer(bytes: event()), promise: nil)
    }

    /// Tells the client it did not keep up (after event `lastSeq`), unsubscribes it and closes the connection.
    private func drop(after lastSeq: Int64) {
        let first = state.withLock { state -> Bool in
            defer { state.dropped = true }
            return !state.dropped
        }
        guard first else { return }
        let notice = RPCResponse.notification(
            method: "dropped",
            params: ["reason": "the watcher did not keep up; reconnect with after", "lastSeq": .int(lastSeq)])
        channel.writeAndFlush(ByteBuffer(bytes: notice)).whenComplete { [channel] _ in channel.close(promise: nil) }
        // A client that never reads would keep the notice, and the buffer before it, forever.
        channel.eventLoop.scheduleTask(in: .seconds(10)) { [channel] in channel.close(promise: nil) }
        onDrop(self)
    }

    private static func event(for change: OrderChange) -> [UInt8] {
        RPCResponse.event(
            seq: change.sequence, at: change.atText, kind: change.kind.rawValue, orderText: change.afterWireText)
    }

    private static func event(for change: ShopChange) -> [UInt8] {
        RPCResponse.shopEvent(
            seq: change.sequence, at: change.atText, kind: change.kind.rawValue, member: change.kind.eventMember,
            text: change.text)
    }

    private func event(seq: Int64, at: String, kind: String, cart: Cart) -> [UInt8] {
        RPCResponse.event(seq: seq, at: at, kind: kind, orderText: cart.wireText)
    }
}
