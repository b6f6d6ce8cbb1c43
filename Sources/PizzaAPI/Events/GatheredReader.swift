public import NIOCore
import PizzaCore

/// A reader of the fan-out that writes to one connection's channel (a board page): each batch the fan-out hands over
/// goes out in one write of the batch's shared bytes. It holds the batches while its opening (a snapshot, or a replay
/// from the audit log) is written, then sends what the opening did not cover. More than
/// ``EventFanOut/maximumPending`` bytes held, or a channel that stopped being writable, is not keeping up: it is sent
/// `dropped` and closed.
public final class GatheredReader: EventReader {
    /// A page is not a device.
    public let device: String? = nil
    /// Whether the page gets orders without the customer's name (`board.showCustomer: false`).
    public let hideCustomer: Bool
    private let channel: any Channel
    /// Writes bytes as a part of the response's body, and flushes; called on the channel's loop.
    private let write: @Sendable (ByteBuffer) -> EventLoopFuture<Void>
    private let onDrop: @Sendable () -> Void
    private let state = Locked(State())

    private struct State {
        var holding = true
        var held: [EventBatch] = []
        var heldBytes = 0
        /// The last event sent (or covered by the opening): nothing up to it is sent again.
        var lastSent: Int64 = 0
        var dropped = false
    }

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

    /// Takes a batch: held while the opening is written, written after.
    public func receive(_ batch: EventBatch) -> Bool {
        let writable = channel.isWritable
        let behind = state.withLock { state -> Bool? in
            if state.dropped { return nil }
            if state.holding {
                state.held.append(batch)
                state.heldBytes += batch.bytes.readableBytes
                return state.heldBytes > EventFanOut.maximumPending
            }
            guard writable else { return true }
            send(batch, &state)
            return false
        }
        switch behind {
        case nil: return false
        case true?:
            drop()
            return false
        case false?: return true
        }
    }

    /// Sends nothing up to `seq`: what came before it subscribed, or what the opening (a snapshot, a replay) holds.
    public func skip(through seq: Int64) { state.withLock { $0.lastSent = max($0.lastSent, seq) } }

    /// The opening is written: the batches held meanwhile go out, what it covered left out.
    public func start() {
        state.withLock { state in
            state.holding = false
            for batch in state.held where !state.dropped { send(batch, &state) }
            state.held = []
            state.heldBytes = 0
        }
    }

    /// Whether it was dropped for not keeping up.
    public var isDropped: Bool { state.withLock { $0.dropped } }

    /// Nothing to end: the connection closes with the page.
    public func end() {}

    /// Writes the events of `batch` not yet sent, under the lock that orders them: the write is queued on the
    /// channel's loop, so batches go out in the order they were handed over, whichever thread hands them.
    private func send(_ batch: EventBatch, _ state: inout State) {
        guard let events = batch.after(state.lastSent) else { return }
        state.lastSent = max(state.lastSent, batch.lastSeq ?? state.lastSent)
        let write = self.write
        channel.eventLoop.execute { _ = write(events) }
    }

    /// Tells the client it did not keep up (after the last event it was sent) and closes the connection.
    private func drop() {
        let lastSent = state.withLock { state -> Int64? in
            defer { state.dropped = true }
            return state.dropped ? nil : state.lastSent
        }
        guard let lastSent else { return }
        let channel = channel
        let write = self.write
        channel.eventLoop.execute {
            write(ByteBuffer(string: "event: dropped\ndata: {\"lastSeq\":\(lastSent)}\n\n")).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
        // A client that never reads would keep the notice, and the buffer before it, forever.
        channel.eventLoop.scheduleTask(in: .seconds(10)) { channel.close(promise: nil) }
        onDrop()
    }
}
