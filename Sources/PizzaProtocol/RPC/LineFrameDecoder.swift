public import NIOCore

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
        let view = buffer.readableBytesView
        if let newline = view[(view.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - view.startIndex
            guard length <= maximumLength else { throw LineTooLong() }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") {
                line = line.getSlice(at: line.readerIndex, length: line.readableBytes - 1)!
            }
            scanned = 0
            context.fireChannelRead(Self.wrapInboundOut(line))
            return .continue
        }
        scanned = view.count
        guard view.count <= maximumLength else { throw LineTooLong() }
        return .needMoreData
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
