import NIOCore

/// The request lines one connection has sent and the daemon has not started yet, with the two limits that bound
/// a connection's memory.
///
/// At ``pauseReadingAt`` lines the connection stops reading, so the kernel's socket buffer pushes back on the
/// client. What one read already brought in is still queued (NIO reads a bounded amount); only past ``capacity``,
/// a safety net, is a line refused (and answered `overloaded` by the caller).
struct RequestQueue {
    static let capacity = 8192
    static let pauseReadingAt = 128

    private var lines: CircularBuffer<ByteBuffer> = []

    var isEmpty: Bool { lines.isEmpty }

    /// Whether the connection should stop reading until lines were taken.
    var wantsPause: Bool { lines.count >= Self.pauseReadingAt }

    /// Queues `line`; false, and nothing queued, when the queue is at ``capacity``.
    mutating func append(_ line: ByteBuffer) -> Bool {
        guard lines.count < Self.capacity else { return false }
        lines.append(line)
        return true
    }

    /// The oldest line that is not blank (blank lines are skipped, as JSON-RPC line clients send them).
    mutating func next() -> ByteBuffer? {
        while let line = lines.popFirst() {
            if line.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            return line
        }
        return nil
    }
}
