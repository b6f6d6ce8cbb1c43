import NIOCore

/// What one control-socket connection is doing, as a value: the requests waiting, whether one is running, whether
/// reading is paused, whether it should close. ``ConnectionHandler`` keeps one and does what it says on the
/// channel; the rules are tested here without a channel (`ConnectionStateTests`).
///
/// The rules: requests run one at a time, in order, only once the peer is known and while answers can be sent;
/// reading pauses while answers cannot be sent or ``RequestQueue/pauseReadingAt`` requests wait, and a read asked
/// for meanwhile is made once both cleared; after the client shut its sending side, the connection closes once
/// everything sent was answered (and no event stream holds it open).
struct ConnectionState {
    /// Who is connected, from the kernel; nil until the credentials are read, and nothing runs before.
    var peer: Peer?
    private(set) var queue = RequestQueue()
    /// A request is running; the next one waits for its answer.
    private(set) var busy = false
    private(set) var closing = false
    /// The connection is an event stream (after `events.watch`).
    var watching = false
    /// The client shut its sending side (`echo … | socat`): answer what was sent, then close.
    private(set) var inputClosed = false
    /// A read the channel asked for while reading was paused.
    private(set) var readPending = false

    /// What to do with a line that arrived.
    enum Arrival: Equatable {
        /// Queued; start the next request when `start` (nothing is running and the peer is known).
        case queued(start: Bool)
        /// Dropped: the connection is closing.
        case ignored
        /// Refused: too many requests wait (answer `overloaded`).
        case overloaded
    }

    mutating func received(_ line: ByteBuffer) -> Arrival {
        guard !closing else { return .ignored }
        guard queue.append(line) else { return .overloaded }
        return .queued(start: !busy && peer != nil)
    }

    /// The next request line to run, if one may start now (marked running when it is a change or a scan, by
    /// ``began()``), given whether answers can be sent.
    mutating func nextLine(writable: Bool) -> ByteBuffer? {
        guard !busy, !closing, writable, peer != nil else { return nil }
        return queue.next()
    }

    /// A request that answers later began: the next waits for it.
    mutating func began() { busy = true }

    /// The request under way was answered.
    mutating func finished() { busy = false }

    /// The client shut its sending side.
    mutating func inputDidClose() { inputClosed = true }

    /// Whether to close now (everything sent was answered after the client stopped sending); true once.
    mutating func closeIfDone() -> Bool {
        guard inputClosed, !busy, queue.isEmpty, !watching, !closing else { return false }
        closing = true
        return true
    }

    /// The connection closes for another reason (a line too long).
    mutating func close() { closing = true }

    private func shouldPauseReading(writable: Bool) -> Bool { queue.wantsPause || !writable }

    /// The channel asks to read: true to read now, false to hold the read until ``resumeReading(writable:)``.
    mutating func readRequested(writable: Bool) -> Bool {
        if shouldPauseReading(writable: writable) {
            readPending = true
            return false
        }
        return true
    }

    /// Whether a held read should be made now.
    mutating func resumeReading(writable: Bool) -> Bool {
        guard readPending, !shouldPauseReading(writable: writable) else { return false }
        readPending = false
        return true
    }
}
