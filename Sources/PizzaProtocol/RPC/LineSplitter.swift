public import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Cuts the bytes a connection reads into lines (`\n`, an optional `\r` before it dropped), for a handler that
/// frames its own input: pizzad's connections, where `ByteToMessageHandler` in front of ``LineFrameDecoder`` cost
/// some 2,700 instructions an order on the event loop beyond the search for the newline (PERFORMANCE.md,
/// "Instructions per order").
///
/// ``append(_:)`` each buffer read, then ``next()`` until it gives nil. A line is a slice of the buffer it was
/// read in, not a copy; the bytes after the last newline wait for the next read, and no more than
/// ``maximumLength`` of them: past that ``next()`` throws ``LineTooLong`` before more is read.
public struct LineSplitter {
    /// A line went past the limit; the connection is answered and closed.
    public struct LineTooLong: Error {}

    /// The longest line accepted, in bytes.
    public let maximumLength: Int
    /// What was read and not yet cut into lines; nil when nothing is.
    private var buffer: ByteBuffer?
    /// How far past `buffer`'s reader index the newline was already looked for.
    private var scanned = 0

    /// A splitter refusing lines over `maximumLength`.
    public init(maximumLength: Int = maximumLineLength) { self.maximumLength = maximumLength }

    /// Adds the bytes of a read after those still waiting.
    public mutating func append(_ bytes: ByteBuffer) {
        guard var waiting = buffer.take(), waiting.readableBytes > 0 else {
            buffer = bytes
            scanned = 0
            return
        }
        // The rest of a line goes to the front first, so that a connection that never ends a read on a newline
        // holds one line and one read, not everything it has sent.
        waiting.discardReadBytes()
        waiting.writeImmutableBuffer(bytes)
        buffer = waiting
    }

    /// The next whole line, or nil until more is read; throws when the line waiting is already too long.
    public mutating func next() throws -> ByteBuffer? {
        guard var bytes = buffer.take() else { return nil }
        guard let length = Self.newline(in: bytes, after: scanned) else {
            scanned = bytes.readableBytes
            guard scanned <= maximumLength else { throw LineTooLong() }
            if scanned > 0 { buffer = bytes }
            return nil
        }
        guard length <= maximumLength else { throw LineTooLong() }
        let line = Self.cut(length, from: &bytes)
        scanned = 0
        if bytes.readableBytes > 0 { buffer = bytes }
        return line
    }

    /// The bytes after the last newline, as a last line (the reader has ended), or nil when there are none.
    public mutating func rest() -> ByteBuffer? {
        scanned = 0
        guard let bytes = buffer.take(), bytes.readableBytes > 0 else { return nil }
        return bytes
    }

    /// How many bytes come before the first newline in `bytes`, looking only past the first `scanned` (they were
    /// searched before): memchr, where a walk through `readableBytesView`'s indices cost some 1,200 instructions a
    /// 300-byte request.
    static func newline(in bytes: ByteBuffer, after scanned: Int) -> Int? {
        bytes.withUnsafeReadableBytes { bytes -> Int? in
            guard scanned < bytes.count, let base = bytes.baseAddress else { return nil }
            guard let found = memchr(base + scanned, Int32(UInt8(ascii: "\n")), bytes.count - scanned) else {
                return nil
            }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// Reads the line of `length` bytes and its newline off `bytes`, without a `\r` before the newline.
    static func cut(_ length: Int, from bytes: inout ByteBuffer) -> ByteBuffer {
        var line = bytes.readSlice(length: length)!
        bytes.moveReaderIndex(forwardBy: 1)
        if length > 0, line.getInteger(at: line.readerIndex + length - 1, as: UInt8.self) == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        return line
    }
}
