import NIOCore
import NIOEmbedded
import PizzaProtocol
import PizzaWire
import Testing

/// The two ways lines are cut: pizzad's connections (a `LineSplitter` in the handler) and pizzactl's
/// (`LineFrameDecoder` behind `ByteToMessageHandler`).
enum LineCutter: CaseIterable, CustomTestStringConvertible {
    case splitter, decoder

    var testDescription: String { self == .splitter ? "LineSplitter" : "LineFrameDecoder" }

    /// The lines `chunks`, read one after another, come out as (a last line without its newline when the input
    /// ended); and whether a line was refused as too long.
    func lines(_ chunks: [String], maximum: Int = 16) throws -> (lines: [String], tooLong: Bool) {
        switch self {
        case .splitter:
            var splitter = LineSplitter(maximumLength: maximum)
            var lines: [String] = []
            for chunk in chunks {
                splitter.append(ByteBuffer(string: chunk))
                do {
                    while let line = try splitter.next() { lines.append(String(buffer: line)) }
                } catch is LineSplitter.LineTooLong {
                    return (lines, true)
                }
            }
            if let last = splitter.rest() { lines.append(String(buffer: last)) }
            return (lines, false)
        case .decoder:
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
    }
}

@Suite("Cutting lines")
struct LineFrameDecoderTests {
    @Test(
        "lines split on \\n, a \\r before it dropped, across chunk boundaries, a last line without its newline kept",
        arguments: LineCutter.allCases)
    func splits(_ cutter: LineCutter) throws {
        let result = try cutter.lines(["{\"a\":1}\r\n{\"b\"", ":2}\n\n", "tail"])
        #expect(result.lines == ["{\"a\":1}", "{\"b\":2}", "", "tail"])
        #expect(!result.tooLong)
    }

    @Test(
        "only a \\r right before the \\n is dropped, a line of only \\r is empty, a search goes on where it stopped",
        arguments: LineCutter.allCases)
    func carriageReturns(_ cutter: LineCutter) throws {
        let result = try cutter.lines(["\r\n", "a\rb\n", "c", "d\r", "\n"])
        #expect(result.lines == ["", "a\rb", "cd"])
    }

    @Test(
        "a line over the limit is refused before more of it is buffered, with or without its newline",
        arguments: LineCutter.allCases)
    func tooLong(_ cutter: LineCutter) throws {
        #expect(try cutter.lines([String(repeating: "x", count: 17) + "\n"]).tooLong)
        #expect(try cutter.lines([String(repeating: "x", count: 10), String(repeating: "x", count: 10)]).tooLong)
        let exact = try cutter.lines([String(repeating: "x", count: 16) + "\n"])
        #expect(!exact.tooLong && exact.lines == [String(repeating: "x", count: 16)])
    }

    @Test("a client whose reads never end on a newline holds one line and one read, not all it has sent")
    func boundedCarry() throws {
        var splitter = LineSplitter(maximumLength: 1 << 20)
        var lines = 0
        var largest = 0
        // 100,000 requests of 100 bytes in reads of 4,093 bytes: every read ends inside a line.
        let line = String(repeating: "x", count: 99) + "\n"
        let stream = Array(String(repeating: line, count: 100_000).utf8)
        var offset = 0
        while offset < stream.count {
            let end = min(offset + 4093, stream.count)
            splitter.append(ByteBuffer(bytes: stream[offset..<end]))
            while let cut = try splitter.next() {
                #expect(cut.readableBytes == 99)
                largest = max(largest, cut.storageCapacity)
                lines += 1
            }
            offset = end
        }
        #expect(lines == 100_000)
        #expect(splitter.rest() == nil)
        // A line is a slice of the buffer it came in: that buffer is a read with at most one line carried over.
        #expect(largest <= 2 * (4093 + 100))
    }
}
