public import NIOCore

/// Splits the byte stream into lines (`\n`, an optional `\r` before it is dropped), refusing any line longer
/// than `maximumLength` with ``LineTooLong`` before buffering more of it: ``LineSplitter``'s lines, behind
/// SwiftNIO's `ByteToMessageHandler`, for `pizzactl`'s connection (pizzad's own connections cut their lines with a
/// ``LineSplitter`` of their own).
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// A line went past the limit; the connection is answered and closed.
    public typealias LineTooLong = LineSplitter.LineTooLong

    /// The longest line accepted, in bytes.
    public let maximumLength: Int
    private var scanned = 0

    /// A decoder refusing lines over `maximumLength`.
    public init(maximumLength: Int = maximumLineLength) { self.maximumLength = maximumLength }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = LineSplitter.newline(in: buffer, after: scanned) else {
            scanned = buffer.readableBytes
            guard scanned <= maximumLength else { throw LineTooLong() }
            return .needMoreData
        }
        guard length <= maximumLength else { throw LineTooLong() }
        let line = LineSplitter.cut(length, from: &buffer)
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
