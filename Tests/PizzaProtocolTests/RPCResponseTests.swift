import NIOCore
import PizzaProtocol
import PizzaWire
import Testing

@Suite("Response lines")
struct RPCResponseTests {
    @Test(
        "a success written into a buffer is the same line as the array's, for every kind of id and result",
        arguments: [
            (JSONValue.int(7), JSONValue.encoded(#"{"id":1,"status":"placed"}"#)),
            (.string("till \"3\"\n"), .encoded(#"{"id":2}"#)),
            (.null, .encoded("[]")),
            (.int(-12), .object([("ok", .bool(true)), ("n", .int(3))])),
            (.string("x"), .array([.string("a"), .null])),
            // The longest id and an order far longer than two pizzas': the one-write path's room for both.
            (.int(.min), .encoded("\"" + String(repeating: "é", count: 5000) + "\"")),
        ])
    func bufferMatchesArray(id: JSONValue, result: JSONValue) {
        let buffer = RPCResponse.success(id: id, result: result, allocator: ByteBufferAllocator())
        let line = RPCResponse.success(id: id, result: result)
        #expect(Array(buffer.readableBytesView) == line)
        #expect(line.last == UInt8(ascii: "\n"))
    }
}
