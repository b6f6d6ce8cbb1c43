public import NIOCore
import PizzaCore

extension EventFanOut {
    /// One reader's events, for a task that writes them (`GET /v1/events`): the batches that arrived while it wrote
    /// the last ones are taken in one piece (``next()``), each sliced past what the reader has already sent.
    public final class Reader: EventReader {
        /// The device reading, for revocation; nil for a reader that is not a device.
        public let device: String?
        /// Whether it gets orders without the customer's name.
        public let hideCustomer: Bool
        private let onDrop: (@Sendable () -> Void)?
        private let state = Locked(State())

        private typealias Waiting = CheckedContinuation<[ByteBuffer]?, Never>

        private struct State {
            var pending: [EventBatch] = []
            var bytes = 0
            var waiting: Waiting?
            var finished = false
            /// The last event taken (or sent before, by a replay): nothing up to it is taken again.
            var taken: Int64 = 0
            /// The last event waiting to be taken.
            var queued: Int64 = 0

            /// The pending events past ``taken``, one buffer per batch (slices of the batches' shared bytes).
            mutating func take() -> [ByteBuffer] {
                var events: [ByteBuffer] = []
                events.reserveCapacity(pending.count)
                for batch in pending {
                    guard let slice = batch.after(taken) else { continue }
                    events.append(slice)
                    taken = max(taken, batch.lastSeq ?? taken)
                }
                pending = []
                bytes = 0
                return events
            }
        }

        /// A reader for `device` (nil: not a device); subscribe it with ``EventFanOut/subscribe(_:)``. `onDrop` runs
        /// once if it is dropped for not keeping up (its writer may then be stuck on a client that stopped reading).
        public init(device: String?, hideCustomer: Bool, onDrop: (@Sendable () -> Void)? = nil) {
            self.device = device
            self.hideCustomer = hideCustomer
            self.onDrop = onDrop
        }

        /// Takes `batch`; false once it is past its allowance (it is then ended, with a `dropped` event last).
        public func receive(_ batch: EventBatch) -> Bool {
            let (fits, resume) = state.withLock { state -> (Bool, (Waiting, [ByteBuffer])?) in
                guard !state.finished else { return (false, nil) }
                let fits = state.bytes + batch.bytes.readableBytes <= EventFanOut.maximumPending
                if fits {
                    state.pending.append(batch)
                    state.bytes += batch.bytes.readableBytes
                    state.queued = max(state.queued, batch.lastSeq ?? state.queued)
                } else {
                    let last = max(state.taken, state.queued)
                    state.pending.append(EventBatch(comment: "event: dropped\ndata: {\"lastSeq\":\(last)}\n\n"))
                    state.finished = true
                }
                guard let waiting = state.waiting else { return (fits, nil) }
                let events = state.take()
                guard !events.isEmpty else { return (fits, nil) }
                state.waiting = nil
                return (fits, (waiting, events))
            }
            if let (waiting, events) = resume { waiting.resume(returning: events) }
            if !fits { onDrop?() }
            return fits
        }

        /// Takes nothing up to `seq` (what came before it subscribed, or what a replay from the audit log sent).
        public func skip(through seq: Int64) { state.withLock { $0.taken = max($0.taken, seq) } }

        /// The events that arrived since the last call and were not sent before, in commit order, one buffer per
        /// batch, waiting for some if there are none; nil once the reader is ended and all were taken.
        public func next() async -> [ByteBuffer]? {
            await withCheckedContinuation { (continuation: Waiting) in
                let ready = state.withLock { state -> [ByteBuffer]?? in
                    let events = state.take()
                    if !events.isEmpty { return .some(events) }
                    if state.finished { return .some(nil) }
                    state.waiting = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        /// Hands over a comment line that keeps proxies from closing a quiet stream.
        public func keepAlive() { _ = receive(EventBatch(comment: ": keep-alive\n\n")) }

        /// Ends the stream (the device was revoked, or the daemon stops): what was handed over is still taken.
        public func end() {
            let waiting = state.withLock { state -> Waiting? in
                state.finished = true
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume(returning: nil)
        }
    }
}
