public import NIOCore
public import PizzaCore
import PizzaProtocol
import PizzaWire

/// Every committed change as a Server-Sent Event, encoded once and handed to every reader that streams events
/// (`GET /v1/events`): one repository subscriber however many readers there are, instead of one each encoding the
/// same event again.
///
/// A reader gets the events as `(seq, bytes)`, the bytes one shared `ByteBuffer` per event, taken in batches. A reader
/// with more than ``maximumPending`` bytes not yet taken is not keeping up: it gets a `dropped` event and its stream
/// ends, so a slow screen never holds the writer or the others.
public final class EventFanOut: OrderRepositoryDelegate {
    /// One reader's events, for a task that writes them (`GET /v1/events`): what arrived while it wrote the last
    /// ones is taken in one piece (``next()``), so a reader at full speed makes one write per batch, not per change.
    public final class Reader: EventReader {
        /// The device reading, for revocation; nil for a reader that is not a device.
        public let device: String?
        /// Whether it gets orders without the customer's name.
        public let hideCustomer: Bool
        private let state = Locked(State())

        private struct State {
            var pending: [(Int64, ByteBuffer)] = []
            var bytes = 0
            var waiting: CheckedContinuation<[(Int64, ByteBuffer)]?, Never>?
            var finished = false
        }

        /// A reader for `device` (nil: not a device); subscribe it with ``EventFanOut/subscribe(_:)``.
        public init(device: String?, hideCustomer: Bool) {
            self.device = device
            self.hideCustomer = hideCustomer
        }

        /// Takes event `seq`; false once it is past its allowance.
        public func receive(_ seq: Int64, _ event: ByteBuffer) -> Bool { send(seq, event) }

        /// Hands `event` over; false when the reader is past its allowance (and is then ended, with a `dropped`
        /// event last).
        fileprivate func send(_ seq: Int64, _ event: ByteBuffer) -> Bool {
            let (fits, resume) = state.withLock {
                state -> (Bool, (CheckedContinuation<[(Int64, ByteBuffer)]?, Never>, [(Int64, ByteBuffer)])?) in
                guard !state.finished else { return (false, nil) }
                let fits = state.bytes + event.readableBytes <= EventFanOut.maximumPending
                if fits {
                    state.pending.append((seq, event))
                    state.bytes += event.readableBytes
                } else {
                    let before = seq == Self.keepAliveSeq ? "null" : String(seq - 1)
                    state.pending.append(
                        (seq, ByteBuffer(string: "event: dropped\ndata: {\"lastSeq\":\(before)}\n\n")))
                    state.finished = true
                }
                guard let waiting = state.waiting else { return (fits, nil) }
                state.waiting = nil
                defer {
                    state.pending = []
                    state.bytes = 0
                }
                return (fits, (waiting, state.pending))
            }
            if let (waiting, events) = resume { waiting.resume(returning: events) }
            return fits
        }

        /// The events that arrived since the last call, in commit order, waiting for one if there are none; nil
        /// once the reader is ended and all were taken.
        public func next() async -> [(Int64, ByteBuffer)]? {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> [(Int64, ByteBuffer)]?? in
                    if !state.pending.isEmpty {
                        defer {
                            state.pending = []
                            state.bytes = 0
                        }
                        return .some(state.pending)
                    }
                    if state.finished { return .some(nil) }
                    state.waiting = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        /// The sequence number of a keep-alive comment: written whatever came before.
        public static let keepAliveSeq = Int64.min

        /// Hands over a comment line that keeps proxies from closing a quiet stream.
        public func keepAlive() { _ = send(Self.keepAliveSeq, ByteBuffer(string: ": keep-alive\n\n")) }

        /// Ends the stream (the device was revoked, or the daemon stops): what was handed over is still taken.
        public func end() {
            let waiting = state.withLock { state -> CheckedContinuation<[(Int64, ByteBuffer)]?, Never>? in
                state.finished = true
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume(returning: nil)
        }
    }

    /// The most a reader may have waiting before it counts as not keeping up.
    public static let maximumPending = 1 << 20

    /// The readers by identity, and the same as a list (what each event goes through, taken without copying).
    private let readers = Locked(Readers())

    private struct Readers {
        var byID: [ObjectIdentifier: any EventReader] = [:] {
            didSet { list = Array(byID.values) }
        }
        private(set) var list: [any EventReader] = []
    }

    /// A fan-out with no reader; subscribe it to the repository (`repository.delegates += fanOut`).
    public init() {}

    /// A new reader; it receives every change committed from now on, until ``remove(_:)``.
    public func subscribe(device: String?, hideCustomer: Bool = false) -> Reader {
        let reader = Reader(device: device, hideCustomer: hideCustomer)
        readers.withLock { $0.byID[ObjectIdentifier(reader)] = reader }
        return reader
    }

    /// Adds a reader of another kind (the board's pages, ``GatheredReader``).
    public func subscribe(_ reader: any EventReader) {
        readers.withLock { $0.byID[ObjectIdentifier(reader)] = reader }
    }

    /// Forgets `reader` and ends it.
    public func remove(_ reader: any EventReader) {
        _ = readers.withLock { $0.byID.removeValue(forKey: ObjectIdentifier(reader)) }
        reader.end()
    }

    /// Ends the streams of the readers whose device `isActive` no longer admits.
    public func revalidate(_ isActive: (String) -> Bool) {
        let ended = readers.withLock { readers in
            let ended = readers.byID.filter { entry in entry.value.device.map { !isActive($0) } ?? false }
            for key in ended.keys { readers.byID[key] = nil }
            return Array(ended.values)
        }
        for reader in ended { reader.end() }
    }

    /// How many read now.
    public var count: Int { readers.withLock { $0.list.count } }

    /// Encodes `change` once per form (names shown, names hidden) and hands it to every reader.
    public func repository(didCommit change: OrderChange, latency: Duration) {
        let current = readers.withLock { $0.list }
        guard !current.isEmpty else { return }
        var full: ByteBuffer?
        var hidden: ByteBuffer?
        var slow: [any EventReader] = []
        for reader in current {
            let event: ByteBuffer
            if reader.hideCustomer {
                if hidden == nil { hidden = Self.event(for: change, hideCustomer: true) }
                event = hidden!
            } else {
                if full == nil { full = Self.event(for: change, hideCustomer: false) }
                event = full!
            }
            if !reader.receive(change.sequence, event) { slow.append(reader) }
        }
        if !slow.isEmpty {
            readers.withLock { readers in for reader in slow { readers.byID[ObjectIdentifier(reader)] = nil } }
        }
    }

    /// `event` for `change` as a reader that hides customers' names sees it.
    public static func event(for change: OrderChange, hideCustomer: Bool) -> ByteBuffer {
        guard hideCustomer else {
            return event(
                seq: change.sequence, at: change.atText, kind: change.kind.rawValue, order: change.afterWireText)
        }
        var cart = change.after
        cart.customer = nil
        return event(seq: change.sequence, at: change.atText, kind: change.kind.rawValue, order: cart.wireText)
    }

    /// `id: SEQ`, `event: order` and one `data:` line of `{seq, at, kind, order}` (the JSON holds no raw newline).
    public static func event(seq: Int64, at: String, kind: String, order: String) -> ByteBuffer {
        var bytes = Array("id: \(seq)\nevent: order\ndata: ".utf8)
        bytes += RPCResponse.eventParams(seq: seq, at: at, kind: kind, orderText: order)
        bytes += Array("\n\n".utf8)
        return ByteBuffer(bytes: bytes)
    }
}

/// A reader of the fan-out: it takes each event's shared bytes, or says it cannot keep up.
public protocol EventReader: AnyObject, Sendable {
    /// The device reading, if the reader is one (revocation ends its stream).
    var device: String? { get }
    /// Whether it is sent orders without the customer's name (`board.showCustomer: false`).
    var hideCustomer: Bool { get }
    /// Takes event `seq`; false when it is past its allowance (the fan-out then forgets it).
    func receive(_ seq: Int64, _ event: ByteBuffer) -> Bool
    /// Ends it (revoked, or removed).
    func end()
}
