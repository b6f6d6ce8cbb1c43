import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
@_spi(Fuzzing) import PizzaHTTPEdges

/// One fuzzing input: bytes a client might send to the order API's port. The first byte says where the rest is
/// split across two reads (a request line, a header or a body cut between packets); the rest goes through NIO's
/// HTTP/1.1 decoder as the server's pipeline reads it, and every request it yields, with its body, through what
/// the order API reads before a handler runs (``HTTPEdges``: the route table and the fast path, the headers, the
/// changes' bodies, the query). Nothing may crash or trap; the edges must agree with each other.
func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard let first = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    let split = input.isEmpty ? 0 : Int(first) % (input.count + 1)
    let channel = EmbeddedChannel()
    defer { _ = try? channel.finish() }
    do {
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
    } catch {
        return 0
    }
    var head: HTTPRequestHead?
    var body: [UInt8] = []
    for chunk in [input[..<split], input[split...]] where !chunk.isEmpty {
        do {
            try channel.writeInbound(ByteBuffer(bytes: chunk))
        } catch {
            break  // the decoder refused the bytes: the server answers 400 and closes
        }
        while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let value):
                head = value
                body = []
            case .body(let buffer):
                // The server reads at most 64 KiB of a body.
                if body.count < 65536 { body += buffer.readableBytesView.prefix(65536 - body.count) }
            case .end:
                if let head { read(head, body) }
                head = nil
            }
        }
    }
    return 0
}

/// One whole request through the order API's edges.
func read(_ head: HTTPRequestHead, _ body: [UInt8]) {
    var fields = HTTPFields()
    for (name, value) in head.headers {
        if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
    }
    HTTPEdges.read(
        method: HTTPRequest.Method(head.method.rawValue) ?? .get, path: head.uri, headers: fields, body: body)
}
