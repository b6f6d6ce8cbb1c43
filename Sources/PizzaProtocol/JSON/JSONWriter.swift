public import PizzaCore

/// Writes compact JSON text straight to bytes: the one encoder. The order's wire form (`Cart.wireText`) is written
/// through it member by member, without building a value tree first; ``JSONValue``'s serializer and `RPCResponse`
/// use its string escaping (``appendString(_:to:)``).
///
/// The caller writes a well-formed document: ``open()`` and ``close()`` pair up, and inside an object each value
/// follows its ``key(_:)``. Commas are the writer's business.
public struct JSONWriter {
    private var bytes: [UInt8] = []
    /// Whether the object being written has no member yet (no comma before the next key).
    private var atFirstMember = true

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `{`: starts an object.
    public mutating func open() {
        bytes.append(UInt8(ascii: "{"))
        atFirstMember = true
    }

    /// `}`: ends the object.
    public mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        atFirstMember = false
    }

    /// A member's name and its colon; the value comes next. Names are written from the source as they are (a
    /// member name is a plain identifier, which JSON needs no escape for), not scanned for escapes on every use.
    public mutating func key(_ name: StaticString) {
        assert(Self.isPlain(name), "member name \(name) needs escaping")
        if !atFirstMember { bytes.append(UInt8(ascii: ",")) }
        atFirstMember = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    public mutating func member(_ name: StaticString, _ value: Int64?) {
        key(name)
        if let value { int(value) } else { null() }
    }

    /// The instant as its ISO-8601 text (``Timestamp/description``), written straight into the text.
    public mutating func member(_ name: StaticString, _ value: Timestamp) {
        key(name)
        bytes.append(UInt8(ascii: "\""))
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Timestamp.maximumISO8601Length) { buffer in
            let count = value.writeISO8601(into: buffer)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func null() { bytes.append(contentsOf: "null".utf8) }
    public mutating func bool(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

    /// The integer's decimal digits, written straight into the text.
    public mutating func int(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold UInt64.max; written backwards into a fixed buffer, then copied in one go.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
    public mutating func string(_ value: String) { Self.appendString(value, to: &bytes) }

    /// `[…]`, each element written by `body`.
    public mutating func array<Elements: Sequence>(
        _ elements: Elements, _ body: (inout JSONWriter, Elements.Element) -> Void
    ) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            body(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
        atFirstMember = false
    }

    /// Whether `name` can be written between quotes as it is: no quote, backslash or control character.
    private static func isPlain(_ name: StaticString) -> Bool {
        name.withUTF8Buffer { !$0.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } }
    }

    /// Appends `string` as a JSON string literal: quotes, and the escapes RFC 8259 requires.
    public static func appendString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        let clean = string.withUTF8 { bytes in
            // Most strings need no escaping: copy them in one go.
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return false
            }
            output.append(contentsOf: bytes)
            return true
        }
        if clean {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                Hex.append(byte, to: &output)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
