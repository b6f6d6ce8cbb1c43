public import PizzaCore

/// Writes compact JSON text straight to bytes: the one encoder. The order's wire form (`Cart.wireText`) is written
/// through it member by member, without building a value tree first; ``JSONValue``'s serializer and `RPCResponse`
/// use its string escaping (``appendString(_:to:)``).
///
/// The caller writes a well-formed document: ``open()`` and ``close()`` pair up, and inside an object each value
/// follows its ``key(_:)``. Commas are the writer's business.
public struct JSONWriter: ~Copyable {
    /// The text so far: `count` bytes at `start`, room for `capacity`. A buffer of its own rather than an
    /// `[UInt8]`, whose every `append` checks that it is the only owner of its storage: an order's text is about
    /// 250 small writes, and the writer makes one inside every change's transaction (the audit entry's).
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// Whether the object being written has no member yet (no comma before the next key).
    private var atFirstMember = true
    /// The last instant written, and where its text is in the buffer.
    private var lastTimestamp: (instant: Timestamp, offset: Int, length: Int)?
    /// An instant whose text the caller already has (``knowing(_:as:)``), copied instead of formatted again.
    private var knownInstant: (instant: Timestamp, text: String)?

    public init(capacity: Int = 256) {
        self.capacity = Swift.max(capacity, 16)
        self.start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    /// The text written so far.
    public var text: String { String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self) }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = Swift.max(capacity * 2, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.moveInitialize(from: start, count: count)
        start.deallocate()
        start = moved
        capacity = grown
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        (start + count).initialize(from: base, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    private mutating func append(_ text: StaticString) { text.withUTF8Buffer { append($0) } }

    /// Appends `byte` where ``reserve(_:)`` has made room: a member's few fixed bytes, without checking the
    /// capacity again for each.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        start[count] = byte
        count += 1
    }

    /// Appends `bytes` where ``reserve(_:)`` has made room.
    @inline(__always)
    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        (start + count).initialize(from: base, count: bytes.count)
        count += bytes.count
    }

    /// Tells the writer that `instant`'s text (``Timestamp/description``) is `text`, so that the first member
    /// of that instant copies it instead of formatting it: a change's instant, whose text the change made already.
    public mutating func knowing(_ instant: Timestamp, as text: String) {
        knownInstant = (instant, text)
    }

    /// `{`: starts an object.
    public mutating func open() {
        append(UInt8(ascii: "{"))
        atFirstMember = true
    }

    /// `}`: ends the object.
    public mutating func close() {
        append(UInt8(ascii: "}"))
        atFirstMember = false
    }

    /// A member's name and its colon; the value comes next. Names are written from the source as they are (a
    /// member name is a plain identifier, which JSON needs no escape for), not scanned for escapes on every use.
    public mutating func key(_ name: StaticString) {
        assert(Self.isPlain(name), "member name \(name) needs escaping")
        reserve(name.utf8CodeUnitCount + 4)
        if !atFirstMember { put(UInt8(ascii: ",")) }
        atFirstMember = false
        put(UInt8(ascii: "\""))
        put(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    public mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    public mutating func member(_ name: StaticString, _ value: Int64?) {
        key(name)
        if let value { int(value) } else { null() }
    }

    /// The instant as its ISO-8601 text (``Timestamp/description``), written straight into the text. The same
    /// instant again (an order's times and its new history entries are one change's instant) is copied from where
    /// it was written last.
    public mutating func member(_ name: StaticString, _ value: Timestamp) {
        key(name)
        reserve(Timestamp.maximumISO8601Length + 2)
        put(UInt8(ascii: "\""))
        if let last = lastTimestamp, last.instant == value {
            (start + count).initialize(from: start + last.offset, count: last.length)
            count += last.length
        } else if let known = knownInstant, known.instant == value,
            let length = known.text.utf8.withContiguousStorageIfAvailable({ text in
                guard text.count <= Timestamp.maximumISO8601Length else { return nil as Int? }
                put(text)
                return text.count
            }) ?? nil
        {
            lastTimestamp = (value, count - length, length)
        } else {
            let written = value.writeISO8601(
                into: UnsafeMutableBufferPointer(start: start + count, count: Timestamp.maximumISO8601Length))
            lastTimestamp = (value, count, written)
            count += written
        }
        put(UInt8(ascii: "\""))
    }

    public mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func null() { append("null") }
    public mutating func bool(_ value: Bool) { append(value ? "true" : "false") }

    /// The integer's decimal digits, written straight into the text.
    public mutating func int(_ value: Int64) { Self.withDecimal(value) { append($0) } }

    /// Calls `body` with `value`'s decimal text (a minus sign first when it is negative), written backwards into a
    /// temporary buffer (a sign and 20 digits hold any Int64): no `String` in between.
    @inlinable @discardableResult public static func withDecimal<Result>(
        _ value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        var magnitude = value.magnitude
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { text in
            var first = 21
            repeat {
                first -= 1
                text[first] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                first -= 1
                text[first] = UInt8(ascii: "-")
            }
            return body(UnsafeBufferPointer(rebasing: text[first...]))
        }
    }

    /// A JSON string literal: quotes, and the escapes RFC 8259 requires.
    public mutating func string(_ value: String) {
        // Most strings need no escaping: copied in one go, from where a native string keeps its bytes (`withUTF8`
        // needs a `var`, whose copy cost a retain and a release of every string written).
        let clean =
            value.utf8.withContiguousStorageIfAvailable { bytes in
                guard !bytes.contains(where: Self.needsEscape) else { return false }
                reserve(bytes.count + 2)
                put(UInt8(ascii: "\""))
                put(bytes)
                put(UInt8(ascii: "\""))
                return true
            } ?? false
        if clean { return }
        var escaped: [UInt8] = []
        Self.appendString(value, to: &escaped)
        escaped.withUnsafeBufferPointer { append($0) }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// `[…]`, each element written by `body`.
    public mutating func array<Elements: Sequence>(
        _ elements: Elements, _ body: (inout JSONWriter, Elements.Element) -> Void
    ) {
        append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { append(UInt8(ascii: ",")) }
            first = false
            body(&self, element)
        }
        append(UInt8(ascii: "]"))
        atFirstMember = false
    }

    /// Whether `name` can be written between quotes as it is: no quote, backslash or control character.
    private static func isPlain(_ name: StaticString) -> Bool {
        name.withUTF8Buffer { !$0.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } }
    }

    /// Appends `string` as a JSON string literal: quotes, and the escapes RFC 8259 requires.
    public static func appendString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them in one go (a native string's bytes where they are).
        let clean =
            string.utf8.withContiguousStorageIfAvailable { bytes in
                guard !bytes.contains(where: needsEscape) else { return false }
                output.append(contentsOf: bytes)
                return true
            } ?? false
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
