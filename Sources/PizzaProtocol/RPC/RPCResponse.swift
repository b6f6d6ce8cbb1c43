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
    /// With a number for its id (what tills send), the whole line goes in with one write into the new buffer, where
    /// a write for each of its five parts checked the buffer's capacity and uniqueness five times.
    public static func success(id: JSONValue, result: JSONValue, allocator: ByteBufferAllocator) -> ByteBuffer {
        guard case .encoded(let text) = result else { return allocator.buffer(bytes: success(id: id, result: result)) }
        guard case .int(let number) = id else {
            var bytes: [UInt8] = []
            id.write(into: &bytes)
            var buffer = allocator.buffer(capacity: text.utf8.count + bytes.count + 32)
            buffer.writeStaticString(#"{"jsonrpc":"2.0","id":"#)
            buffer.writeBytes(bytes)
            buffer.writeStaticString(#","result":"#)
            buffer.writeString(text)
            buffer.writeStaticString("}\n")
            return buffer
        }
        let head: StaticString = #"{"jsonrpc":"2.0","id":"#
        let middle: StaticString = #","result":"#
        let length = text.utf8.count + head.utf8CodeUnitCount + middle.utf8CodeUnitCount + 2 + 20
        var buffer = allocator.buffer(capacity: length)
        let wrote = text.utf8.withContiguousStorageIfAvailable { body in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { out in
                var line = LineBytes(out)
                line.append(head)
                JSONWriter.withDecimal(number) { line.append(UnsafeRawBufferPointer($0)) }
                line.append(middle)
                line.append(UnsafeRawBufferPointer(body))
                line.append("}\n")
                return line.count
            }
        }
        if wrote == nil {
            // A text that is not a native string (never one the writer made): through a contiguous copy.
            return allocator.buffer(bytes: success(id: id, result: result))
        }
        return buffer
    }

    /// Bytes copied one part after another into memory already sized for all of them.
    private struct LineBytes {
        let out: UnsafeMutableRawBufferPointer
        var count = 0

        init(_ out: UnsafeMutableRawBufferPointer) { self.out = out }

        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress, bytes.count > 0 else { return }
            precondition(count + bytes.count <= out.count, "an answer line longer than its buffer")
            (out.baseAddress! + count).copyMemory(from: source, byteCount: bytes.count)
            count += bytes.count
        }

        mutating func append(_ text: StaticString) {
            append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
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

    /// The `event` notification of a change that belongs to no order (CONTRACT section 17):
    /// `{seq, at, kind, order: null, item|report}`, `member` carrying what its entry records (`text`, JSON).
    public static func shopEvent(seq: Int64, at: String, kind: String, member: String, text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 128)
        output.append(contentsOf: #"{"jsonrpc":"2.0","method":"event","params":"#.utf8)
        appendEventParams(seq: seq, at: at, kind: kind, orderText: "null", extra: (member, text), to: &output)
        output.append(contentsOf: "}\n".utf8)
        return output
    }

    /// `{"seq":…,"at":…,"kind":…,"order":null,"item":…}`: a shop change's params, as Server-Sent Events and webhooks
    /// carry them.
    public static func shopEventParams(seq: Int64, at: String, kind: String, member: String, text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 96)
        appendEventParams(seq: seq, at: at, kind: kind, orderText: "null", extra: (member, text), to: &output)
        return output
    }

    private static func appendEventParams(
        seq: Int64, at: String, kind: String, orderText: String, extra: (member: String, text: String)? = nil,
        to output: inout [UInt8]
    ) {
        output.append(contentsOf: #"{"seq":"#.utf8)
        output.append(contentsOf: String(seq).utf8)
        output.append(contentsOf: #","at":"#.utf8)
        JSONWriter.appendString(at, to: &output)
        output.append(contentsOf: #","kind":"#.utf8)
        JSONWriter.appendString(kind, to: &output)
        output.append(contentsOf: #","order":"#.utf8)
        output.append(contentsOf: orderText.utf8)
        if let extra {
            output.append(contentsOf: ",".utf8)
            JSONWriter.appendString(extra.member, to: &output)
            output.append(contentsOf: ":".utf8)
            output.append(contentsOf: extra.text.utf8)
        }
        output.append(contentsOf: "}".utf8)
    }
}
