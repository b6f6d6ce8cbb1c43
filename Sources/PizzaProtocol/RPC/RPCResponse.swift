public import NIOCore
public import PizzaWire

/// A JSON-RPC 2.0 response.
public enum RPCResponse {
    /// The line for a successful result.
    public static func success(id: JSONValue, result: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        // An order's answer is its wire text as the change encoded it (700-odd bytes for two pizzas): room for
        // all of it at once, where growing from a guess reallocated and copied it on every change.
        if case .encoded(let text) = result {
            output.reserveCapacity(text.utf8.count + 64)
        } else {
            output.reserveCapacity(512)
        }
        output.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        id.write(into: &output)
        output.append(contentsOf: #","result":"#.utf8)
        result.write(into: &output)
        output.append(contentsOf: "}\n".utf8)
        return output
    }

    /// ``success(id:result:)`` written straight into a buffer from `allocator`, what the socket sends: an order's
    /// wire text is copied once, where building the line in an array first copied it twice and allocated twice.
    public static func success(id: JSONValue, result: JSONValue, allocator: ByteBufferAllocator) -> ByteBuffer {
        guard case .encoded(let text) = result else { return allocator.buffer(bytes: success(id: id, result: result)) }
        var buffer = allocator.buffer(capacity: text.utf8.count + 64)
        buffer.writeStaticString(#"{"jsonrpc":"2.0","id":"#)
        if case .int(let number) = id {
            JSONWriter.withDecimal(number) { buffer.writeBytes(UnsafeRawBufferPointer($0)) }
        } else {
            var bytes: [UInt8] = []
            id.write(into: &bytes)
            buffer.writeBytes(bytes)
        }
        buffer.writeStaticString(#","result":"#)
        buffer.writeString(text)
        buffer.writeStaticString("}\n")
        return buffer
    }

    /// The line for an error.
    public static func failure(id: JSONValue?, error: RPCError) -> [UInt8] {
        var output: [UInt8] = []
        output.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        (id ?? .null).write(into: &output)
        output.append(contentsOf: #","error":"#.utf8)
        error.json.write(into: &output)
        output.append(contentsOf: "}\n".utf8)
        return output
    }

    /// The line for a server-sent notification (`event`).
    public static func notification(method: String, params: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.append(contentsOf: #"{"jsonrpc":"2.0","method":"#.utf8)
        JSONValue.string(method).write(into: &output)
        output.append(contentsOf: #","params":"#.utf8)
        params.write(into: &output)
        output.append(contentsOf: "}\n".utf8)
        return output
    }

    /// The `event` notification of one change, `{seq, at, kind, order}`, with the order's wire text put in as it
    /// is (``OrderChange/afterWireText``: encoded once per change, however many watchers).
    public static func event(seq: Int64, at: String, kind: String, orderText: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(orderText.utf8.count + 128)
        output.append(contentsOf: #"{"jsonrpc":"2.0","method":"event","params":"#.utf8)
        appendEventParams(seq: seq, at: at, kind: kind, orderText: orderText, to: &output)
        output.append(contentsOf: "}\n".utf8)
        return output
    }

    /// `{"seq":…,"at":…,"kind":…,"order":…}`: an event's params, as the board's Server-Sent Events carry them.
    public static func eventParams(seq: Int64, at: String, kind: String, orderText: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(orderText.utf8.count + 96)
        appendEventParams(seq: seq, at: at, kind: kind, orderText: orderText, to: &output)
        return output
    }

    private static func appendEventParams(
        seq: Int64, at: String, kind: String, orderText: String, to output: inout [UInt8]
    ) {
        output.append(contentsOf: #"{"seq":"#.utf8)
        output.append(contentsOf: String(seq).utf8)
        output.append(contentsOf: #","at":"#.utf8)
        JSONWriter.appendString(at, to: &output)
        output.append(contentsOf: #","kind":"#.utf8)
        JSONWriter.appendString(kind, to: &output)
        output.append(contentsOf: #","order":"#.utf8)
        output.append(contentsOf: orderText.utf8)
        output.append(contentsOf: "}".utf8)
    }
}
