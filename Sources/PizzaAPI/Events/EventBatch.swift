public import NIOCore
public import PizzaCore

/// Consecutive Server-Sent Events in one buffer, and where each ends: what the fan-out hands every reader at once.
///
/// Readers share the buffer's storage (a `ByteBuffer` copy is a reference): a reader that has already sent some of
/// the events (its opening covered them) writes a slice of the rest, ``after(_:)``, without copying a byte. A batch
/// with no events is a comment (a keep-alive, a notice): written whatever came before.
public struct EventBatch: Sendable {
    /// The events' bytes, in commit order.
    public let bytes: ByteBuffer
    /// Each event's sequence number and the offset in ``bytes`` just past it, in commit order.
    private let marks: [Mark]

    struct Mark {
        var seq: Int64
        var end: Int
    }

    /// A comment, or a notice: bytes with no event's sequence number.
    public init(comment: String) {
        bytes = ByteBuffer(string: comment)
        marks = []
    }

    fileprivate init(bytes: ByteBuffer, marks: [Mark]) {
        self.bytes = bytes
        self.marks = marks
    }

    /// The first event's sequence number; nil for a comment.
    public var firstSeq: Int64? { marks.first?.seq }

    /// The last event's sequence number; nil for a comment.
    public var lastSeq: Int64? { marks.last?.seq }

    /// How many events it holds.
    public var count: Int { marks.count }

    /// The events after `seq`, a slice of the same storage (the whole of a comment); nil when it has none.
    public func after(_ seq: Int64) -> ByteBuffer? {
        guard let first = marks.first, let last = marks.last else { return bytes }
        if first.seq > seq { return bytes }
        guard last.seq > seq else { return nil }
        // marks[low].seq is the first past `seq`; low >= 1, since marks[0] is not.
        var low = 1
        var high = marks.count - 1
        while low < high {
            let middle = (low + high) / 2
            if marks[middle].seq > seq { high = middle } else { low = middle + 1 }
        }
        let start = marks[low - 1].end
        return bytes.getSlice(at: bytes.readerIndex + start, length: bytes.readableBytes - start)
    }

    /// Gathers events into a batch.
    public struct Builder: Sendable {
        private var bytes = ByteBuffer()
        private var marks: [Mark] = []

        /// An empty builder, with room for `capacity` bytes (the last batch's size, say) so that it seldom grows.
        public init(reservingCapacity capacity: Int = 0) {
            bytes.reserveCapacity(capacity)
        }

        /// Whether it holds no event yet.
        public var isEmpty: Bool { marks.isEmpty }

        /// Appends event `seq` as an `order` event of `{seq, at, kind, order}`.
        public mutating func append(seq: Int64, at: String, kind: String, order: String) {
            EventFanOut.write(seq: seq, at: at, kind: kind, order: order, to: &bytes)
            marks.append(Mark(seq: seq, end: bytes.readableBytes))
        }

        /// Appends event `seq`, which belongs to no order, as a `shop` event of `{seq, at, kind, order: null, item|report}`.
        public mutating func append(_ change: ShopChange) {
            EventFanOut.write(change, to: &bytes)
            marks.append(Mark(seq: change.sequence, end: bytes.readableBytes))
        }

        /// The batch of what it holds; the builder starts empty again, with room for as much.
        public mutating func seal() -> EventBatch {
            defer { self = Builder(reservingCapacity: bytes.readableBytes) }
            return EventBatch(bytes: bytes, marks: marks)
        }
    }
}
