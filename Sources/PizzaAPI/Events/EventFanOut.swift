public import NIOCore
import NIOPosix
public import PizzaCore
import PizzaProtocol
import PizzaWire

/// Every committed change as a Server-Sent Event, encoded once and written once for every reader that streams
/// events (the board's pages and `GET /v1/events`): one repository subscriber however many readers there are.
///
/// Each change is encoded into the batch that is gathering (one per form: names shown, names hidden, the second only
/// while a reader hides them). Every ``gatherFor`` the batch is sealed and the same ``EventBatch`` goes to every
/// reader: a reader at full speed makes one write per batch, a few dozen a second, of bytes it shares with the others
/// (no copy per reader). A reader with more than ``maximumPending`` bytes not yet taken is not keeping up: it gets a
/// `dropped` event and its stream ends, so a slow screen never holds the writer or the others.
public final class EventFanOut: OrderRepositoryDelegate {
    /// The most a reader may have waiting before it counts as not keeping up.
    public static let maximumPending = 1 << 20

    /// How long events gather before their batch goes to the readers: each change is on the screens within a frame
    /// or two, and at full speed a reader gets a few dozen writes a second instead of one per change.
    public static let gatherFor: TimeAmount = .milliseconds(25)

    private let state = Locked(State())
    /// Where batches are sealed and handed over, one at a time, in commit order.
    private let loop: any EventLoop

    private struct State {
        var byID: [ObjectIdentifier: any EventReader] = [:] {
            didSet {
                shown = byID.values.filter { !$0.hideCustomer }
                hidden = byID.values.filter { $0.hideCustomer }
            }
        }
        /// The readers of each form, taken without copying when a batch goes out.
        var shown: [any EventReader] = []
        var hidden: [any EventReader] = []
        var gatheringShown = EventBatch.Builder()
        var gatheringHidden = EventBatch.Builder()
        /// The newest change handed in: a reader subscribed now gets only those after it.
        var lastSeq: Int64 = 0
        var sealScheduled = false
    }

    /// A fan-out with no reader, sealing its batches on `loop` (one of NIO's shared loops if nil); subscribe it to
    /// the repository (`repository.delegates += fanOut`).
    public init(loop: (any EventLoop)? = nil) {
        self.loop = loop ?? MultiThreadedEventLoopGroup.singleton.any()
    }

    /// A new reader for `device` (nil: not a device); it receives every change committed from now on, until
    /// ``remove(_:)``; `onDrop` runs if it is dropped for not keeping up.
    public func subscribe(
        device: String?, hideCustomer: Bool = false, onDrop: (@Sendable () -> Void)? = nil
    ) -> Reader {
        let reader = Reader(device: device, hideCustomer: hideCustomer, onDrop: onDrop)
        subscribe(reader)
        return reader
    }

    /// Adds `reader`; it receives every change committed from now on.
    func subscribe(_ reader: any EventReader) {
        state.withLock { state in
            reader.skip(through: state.lastSeq)
            state.byID[ObjectIdentifier(reader)] = reader
        }
    }

    /// Forgets `reader` and ends it.
    public func remove(_ reader: any EventReader) {
        _ = state.withLock { $0.byID.removeValue(forKey: ObjectIdentifier(reader)) }
        reader.end()
    }

    /// Ends the streams of the readers whose device `isActive` no longer admits.
    public func revalidate(_ isActive: (String) -> Bool) {
        let ended = state.withLock { state in
            let ended = state.byID.filter { entry in entry.value.device.map { !isActive($0) } ?? false }
            for key in ended.keys { state.byID[key] = nil }
            return Array(ended.values)
        }
        for reader in ended { reader.end() }
    }

    /// How many read now.
    public var count: Int { state.withLock { $0.byID.count } }

    /// Encodes `change` into the gathering batch of each form a reader reads, once, and has the batch sealed
    /// ``gatherFor`` from now if it was empty.
    public func repository(didCommit change: OrderChange, latency: Duration) {
        let schedule = state.withLock { state -> Bool in
            state.lastSeq = change.sequence
            if !state.shown.isEmpty {
                state.gatheringShown.append(
                    seq: change.sequence, at: change.atText, kind: change.kind.rawValue, order: change.afterWireText)
            }
            if !state.hidden.isEmpty {
                var cart = change.after
                cart.customer = nil
                state.gatheringHidden.append(
                    seq: change.sequence, at: change.atText, kind: change.kind.rawValue, order: cart.wireText)
            }
            guard !state.sealScheduled, !state.gatheringShown.isEmpty || !state.gatheringHidden.isEmpty else {
                return false
            }
            state.sealScheduled = true
            return true
        }
        if schedule { loop.scheduleTask(in: Self.gatherFor) { self.seal() } }
    }

    /// Encodes a change that belongs to no order (an item's availability, a Z report) as a `shop` event into each
    /// gathering batch: the same for both forms (it names no customer).
    public func repository(didCommit change: ShopChange) {
        let schedule = state.withLock { state -> Bool in
            state.lastSeq = change.sequence
            if !state.shown.isEmpty { state.gatheringShown.append(change) }
            if !state.hidden.isEmpty { state.gatheringHidden.append(change) }
            guard !state.sealScheduled, !state.gatheringShown.isEmpty || !state.gatheringHidden.isEmpty else {
                return false
            }
            state.sealScheduled = true
            return true
        }
        if schedule { loop.scheduleTask(in: Self.gatherFor) { self.seal() } }
    }

    /// Seals what gathered and hands each batch to its readers, spread over the next ``gatherFor`` in a few groups
    /// (``readersPerGroup`` each): fifty readers' writes at one instant would hold the event loops, which also answer
    /// the tills, for milliseconds. A reader's batches still arrive in order, whichever group it falls in: the last
    /// group is handed its batch before the next batch is sealed.
    private func seal() {
        let (shown, shownReaders, hidden, hiddenReaders) = state.withLock { state in
            state.sealScheduled = false
            let shown = state.gatheringShown.isEmpty ? nil : state.gatheringShown.seal()
            let hidden = state.gatheringHidden.isEmpty ? nil : state.gatheringHidden.seal()
            return (shown, state.shown, hidden, state.hidden)
        }
        var deliveries: [(EventBatch, any EventReader)] = []
        if let shown { deliveries += shownReaders.map { (shown, $0) } }
        if let hidden { deliveries += hiddenReaders.map { (hidden, $0) } }
        let groups = min(Self.groups, (deliveries.count + Self.readersPerGroup - 1) / Self.readersPerGroup)
        guard groups > 1 else { return deliver(deliveries) }
        for group in 0..<groups {
            let part = stride(from: group, to: deliveries.count, by: groups).map { deliveries[$0] }
            if group == 0 {
                deliver(part)
            } else {
                loop.scheduleTask(in: .nanoseconds(Self.gatherFor.nanoseconds * Int64(group) / Int64(groups))) {
                    self.deliver(part)
                }
            }
        }
    }

    /// The most groups a batch's readers are handed it in, one after another within ``gatherFor``.
    static let groups = 5
    /// How many readers are handed a batch at once before the rest wait for the next group.
    static let readersPerGroup = 10

    /// Hands each reader its batch; forgets those that cannot keep up.
    private func deliver(_ deliveries: [(EventBatch, any EventReader)]) {
        var slow: [any EventReader] = []
        for (batch, reader) in deliveries where !reader.receive(batch) { slow.append(reader) }
        guard !slow.isEmpty else { return }
        state.withLock { state in for reader in slow { state.byID[ObjectIdentifier(reader)] = nil } }
    }

    /// Writes `id: SEQ`, `event: order` and one `data:` line of `{seq, at, kind, order}` into `bytes` (the JSON holds
    /// no raw newline).
    public static func write(seq: Int64, at: String, kind: String, order: String, to bytes: inout ByteBuffer) {
        bytes.writeString("id: ")
        bytes.writeString(String(seq))
        bytes.writeString("\nevent: order\ndata: ")
        bytes.writeBytes(RPCResponse.eventParams(seq: seq, at: at, kind: kind, orderText: order))
        bytes.writeString("\n\n")
    }
}

extension EventFanOut {
    /// Writes `id: SEQ`, `event: shop` and one `data:` line of `{seq, at, kind, order: null, item|report}`.
    public static func write(_ change: ShopChange, to bytes: inout ByteBuffer) {
        write(
            seq: change.sequence, at: change.atText, kind: change.kind.rawValue, member: change.kind.eventMember,
            text: change.text, to: &bytes)
    }

    /// A shop event from its parts (an audit entry replayed).
    public static func write(
        seq: Int64, at: String, kind: String, member: String, text: String, to bytes: inout ByteBuffer
    ) {
        bytes.writeString("id: ")
        bytes.writeString(String(seq))
        bytes.writeString("\nevent: shop\ndata: ")
        bytes.writeBytes(RPCResponse.shopEventParams(seq: seq, at: at, kind: kind, member: member, text: text))
        bytes.writeString("\n\n")
    }
}

/// A reader of the fan-out: it takes each batch of events, or says it cannot keep up.
public protocol EventReader: AnyObject, Sendable {
    /// The device reading, if the reader is one (revocation ends its stream).
    var device: String? { get }
    /// Whether it is sent orders without the customer's name (`board.showCustomer: false`).
    var hideCustomer: Bool { get }
    /// Takes the next batch (of the form ``hideCustomer`` says); false when it is past its allowance (the fan-out
    /// then forgets it).
    func receive(_ batch: EventBatch) -> Bool
    /// Sends nothing up to `seq`: what came before it subscribed, or what its opening already holds.
    func skip(through seq: Int64)
    /// Ends it (revoked, or removed).
    func end()
}
