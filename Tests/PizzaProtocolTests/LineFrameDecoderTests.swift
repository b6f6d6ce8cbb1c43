import NIOCore
import NIOEmbedded
import PizzaProtocol
import PizzaWire
import Testing

@Suite("The line decoder")
struct LineFrameDecoderTests {
    /// The lines `input`, written in `chunks`, comes out as; and whether the decoder refused a line.
    func lines(_ chunks: [String], maximum: Int = 16) throws -> (lines: [String], tooLong: Bool) {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maximumLength: maximum)))
        var tooLong = false
        for chunk in chunks {
            do {
                try channel.writeInbound(ByteBuffer(string: chunk))
            } catch is LineFrameDecoder.LineTooLong {
                tooLong = true
                break
            }
        }
        if !tooLong { _ = try? channel.finish() }
        var lines: [String] = []
        while let line = try channel.readInbound(as: ByteBuffer.self) { lines.append(String(buffer: line)) }
        return (lines, tooLong)
    }

    @Test("lines split on \\n, a \\r before it dropped, across chunk boundaries, a last line without its newline kept")
    func splits() throws {
        let result = try lines(["{\"a\":1}\r\n{\"b\"", ":2}\n\n", "tail"])
        #expect(result.lines == ["{\"a\":1}", "{\"b\":2}", "", "tail"])
        #expect(!result.tooLong)
    }

    @Test("only a \\r right before the \\n is dropped, a line of only \\r is empty, a search goes on where it stopped")
    func carriageReturns() throws {
        let result = try lines(["\r\n", "a\rb\n", "c", "d\r", "\n"])
        #expect(result.lines == ["", "a\rb", "cd"])
    }

    @Test("a line over the limit is refused before more of it is buffered, with or without its newline")
    func tooLong() throws {
        #expect(try lines([String(repeating: "x", count: 17) + "\n"]).tooLong)
        #expect(try lines([String(repeating: "x", count: 10), String(repeating: "x", count: 10)]).tooLong)
        let exact = try lines([String(repeating: "x", count: 16) + "\n"])
        #expect(!exact.tooLong && exact.lines == [String(repeating: "x", count: 16)])
    }
}
