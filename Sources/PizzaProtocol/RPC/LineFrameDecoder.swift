public import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Splits the byte stream into lines (`\n`, an optional `\r` before it is dropped), refusing any line longer
/// than `maximumLength` with ``LineTooLong`` before buffering more of it.
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// A line went past the limit; the connection is answered and closed.
    public struct LineTooLong: Error {}

    /// The longest line accepted, in bytes.
    public let maximumLength: Int
    private var scanned = 0

    /// A decoder refusing lines over `maximumLength`.
    public init(maximumLength: Int = maximumLineLength) { self.maximumLength = maximumLength }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        // memchr over the bytes not scanned yet: a byte-by-byte search through `readableBytesView`'s indices cost
        // some 1,200 instructions a 300-byte request (PERFORMANCE.md, "Instructions per order").
        let readable = buffer.readableBytes
        let newline = buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard scanned < bytes.count, let base = bytes.baseAddress else { return nil }
            guard let found = memchr(base + scanned, Int32(UInt8(ascii: "\n")), bytes.count - scanned) else {
                return nil
            }
            return base.distance(to: UnsafeRawPointer(found))
        }
        guard let length = newline else {
            scanned = readable
            guard readable <= maximumLength else { throw LineTooLong() }
            return .needMoreData
        }
        guard length <= maximumLength else { throw LineTooLong() }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if length > 0, line.getInteger(at: line.readerIndex + length - 1, as: UInt8.self) == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        scanned = 0
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A last line without its newline is still a request.
        if buffer.readableBytes > 0, let line = buffer.readSlice(length: buffer.readableBytes) {
            scanned = 0
            context.fireChannelRead(Self.wrapInboundOut(line))
        }
        return .needMoreData
    }
}
