/// The plain part of JSON that ``OrderCreateReader`` reads: objects of known members, arrays, strings of printable
/// ASCII without escapes, whole numbers, literals. Anything else reads as nil (or false), for the general path.
extension OrderCreateReader {
    /// `{"name": value, …}` whose names are among `names`, each at most once; `member` reads the value of the name
    /// at its index and says whether it could.
    mutating func object(_ names: [StaticString], _ member: (inout OrderCreateReader, Int) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        var seen = 0
        repeat {
            guard let name = self.name(among: names), seen & (1 << name) == 0, take(UInt8(ascii: ":")) else {
                return false
            }
            seen |= 1 << name
            skipWhitespace()
            guard member(&self, name) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// `[value, …]`, each read by `element`.
    mutating func array(_ element: (inout OrderCreateReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            skipWhitespace()
            guard element(&self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    /// A member's name: its index in `names`, or nil for any other. Each name is tried where the member's name
    /// starts, its closing quote first, so that a name not among them is not read byte by byte (one that is among
    /// them is plain, needing no check for escapes).
    mutating func name(among names: [StaticString]) -> Int? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let base = bytes.baseAddress else {
            return nil
        }
        let start = index + 1
        for candidate in names.indices {
            let name = names[candidate]
            let end = start + name.utf8CodeUnitCount
            guard end < bytes.count, bytes[end] == UInt8(ascii: "\""),
                Self.equal(name, UnsafeBufferPointer(start: base + start, count: end - start))
            else { continue }
            index = end + 1
            return candidate
        }
        return nil
    }

    /// A string of printable ASCII without escapes.
    mutating func string() -> String? {
        plainString().map { String(decoding: $0, as: UTF8.self) }
    }

    /// `[string, …]`.
    mutating func strings() -> [String]? {
        var strings: [String] = []
        let read = array { reader in
            guard let string = reader.string() else { return false }
            strings.append(string)
            return true
        }
        return read ? strings : nil
    }

    /// The bytes between a string's quotes, when they need no decoding (no escape, nothing outside printable ASCII).
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return UnsafeBufferPointer(rebasing: bytes[start..<end])
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        return nil
    }

    /// `-?digits` that fit in 64 bits, without a fraction or an exponent (a leading zero only alone).
    mutating func int() -> Int64? {
        var end = index
        let negative = end < bytes.count && bytes[end] == UInt8(ascii: "-")
        if negative { end += 1 }
        let digits = end
        var value: Int64 = 0
        while end < bytes.count, (48...57).contains(bytes[end]) {
            // Built as a negative number, which reaches Int64.min, as the general parser does.
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(bytes[end] - 48))
            if overflow || overflow2 { return nil }
            value = next
            end += 1
        }
        guard end > digits, bytes[digits] != 48 || end == digits + 1 else { return nil }
        if end < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[end]) {
            return nil
        }
        if !negative, value == .min { return nil }
        index = end
        return negative ? value : -value
    }

    mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// Whether `text` comes next (after white space); only then is it read.
    mutating func literal(_ text: StaticString) -> Bool {
        skipWhitespace()
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count,
            Self.equal(text, UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]))
        else { return false }
        index += count
        return true
    }

    /// Whether `text` is `name`, byte for byte (a plain loop: `elementsEqual` was a tenth of the reading), the
    /// lengths compared first.
    static func equal(_ name: StaticString, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.utf8CodeUnitCount == text.count else { return false }
        let bytes = name.utf8Start
        for index in 0..<text.count where bytes[index] != text[index] { return false }
        return true
    }

    /// Whether `byte` comes next (after white space); only then is it read.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }
}
