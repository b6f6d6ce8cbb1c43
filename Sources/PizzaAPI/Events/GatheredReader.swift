public import NIOCore
import PizzaCore

/// A reader of the fan-out that writes to one connection's channel, gathered: the events of ``gatherFor`` go out
/// in one write (a board page at full speed gets a few dozen writes a second instead of one per change). It holds
/// the live events while its opening (a snapshot, or a replay from the audit log) is written, then sends those the
/// opening did not cover. More than ``EventFanOut/maximumPending`` bytes waiting, or a channel that stopped being
/// writable, is not keeping up: it is sent `dropped` and closed.
public final class GatheredReader: EventReader {
    /// A page is not a device.
    public let device: String? = nil
    /// Whether the page gets orders without the customer's name (`board.showCustomer: false`).
    public let hideCustomer: Bool
    private let channel: any Channel
    /// Writes bytes as a part of the response's body, and flushes.
    private let write: @Sendable (ByteBuffer) -> EventLoopFuture<Void>
    private let onDrop: @Sendable () -> Void
    private let state = Locked(State())

    private struct State {
        var holding = true
        var held: [(Int64, ByteBuffer)] = []
        var lastSent: Int64 = 0
        var pending = ByteBuffer()
        var flushScheduled = false
        var dropped = false
    }

    /// How long events gather before they are written.
    public static let gatherFor: TimeAmount = .milliseconds(25)

    /// A reader writing to `channel` through `write` (which wraps the bytes in the response and flushes); `onDrop`
    /// runs once if it is dropped for not keeping up.
    public init(
        channel: any Channel, hideCustomer: Bool, write: @escaping @Sendable (ByteBuffer) -> EventLoopFuture<Void>,
        onDrop: @escaping @Sendable () -> Void
    ) {
        self.channel = channel
        self.hideCustomer = hideCustomer
        self.write = write
        self.onDrop = onDrop
    }

    /// Takes a live event: held while the opening is written, gathered after.
    public func receive(_ seq: Int64, _ event: ByteBuffer) -> Bool {
        send(seq, event, live: true)
    }

    /// Sends event `seq` of the opening's replay (from the audit log), in order.
    public func replayed(_ seq: Int64, _ event: ByteBuffer) { _ = send(seq, event) }

    /// Sends nothing up to `seq`: the snapshot written before the stream holds it.
    public func skip(through seq: Int64) { state.withLock { $0.lastSent = max($0.lastSent, seq) } }

    /// The opening is written: the live events held meanwhile go out, those it covered skipped.
    public func start() {
        while true {
            let held = state.withLock { state -> [(Int64, ByteBuffer)] in
                defer { state.held.removeAll() }
                if state.held.isEmpty { state.holding = false }
                return state.held
            }
            if held.isEmpty { return }
            for (seq, event) in held { _ = send(seq, event) }
        }
    }

    /// Whether it was dropped for not keeping up.
    public var isDropped: Bool { state.withLock { $0.dropped } }

    /// Nothing to end: the connection closes with the page.
    public func end() {}

    private enum Outcome {
        case gathered(schedule: Bool)
        case skipped
        case ended
        case behind
    }

    /// Gathers event `seq`, in one lock (a `live` one is held instead while the opening is written).
    private func send(_ seq: Int64, _ event: ByteBuffer, live: Bool = false) -> Bool {
        let writable = channel.isWritable
        let outcome = state.withLock { state -> Outcome in
            if state.dropped { return .ended }
            if live, state.holding {
                state.held.append((seq, event))
                return .gathered(schedule: false)
            }
            guard writable else { return .behind }
            if seq <= state.lastSent { return .skipped }
            if state.pending.readableBytes + event.readableBytes > EventFanOut.maximumPending { return .behind }
            state.lastSent = seq
            var event = event
            state.pending.writeBuffer(&event)
            if state.flushScheduled { return .gathered(schedule: false) }
            state.flushScheduled = true
            return .gathered(schedule: true)
        }
        switch outcome {
        case .gathered(let schedule):
            if schedule { channel.eventLoop.scheduleTask(in: Self.gatherFor) { self.flush() } }
            return true
        case .skipped: return true
        case .ended: return false
        case .behind:
            drop(after: seq - 1)
            return false
        }
    }

    /// On the connection's loop: writes what has gathered, in one part of the response.
    private func flush() {
        let bytes = state.withLock { state -> ByteBuffer? in
            defer {
                state.pending.clear()
                state.flushScheduled = false
            }
            return state.dropped || state.pending.readableBytes == 0 ? nil : state.pending
        }
        if let bytes { _ = write(bytes) }
    }

    /// Tells the client it did not keep up (after event `lastSeq`) and closes the connection.
    private func drop(after lastSeq: Int64) {
        let first = state.withLock { state -> Bool in
            defer { state.dropped = true }
            return !state.dropped
        }
        guard first else { return }
        let channel = channel
        write(ByteBuffer(string: "event: dropped\ndata: {\"lastSeq\":\(lastSeq)}\n\n")).whenComplete { _ in
            channel.close(promise: nil)
        }
        // A client that never reads would keep the notice, and the buffer before it, forever.
        channel.eventLoop.scheduleTask(in: .seconds(10)) { channel.close(promise: nil) }
        onDrop()
    }
}
