/// Lowercase hexadecimal text of bytes (digests, escapes), the one place pizzad writes hex.
public enum Hex {
    /// `0`…`9`, `a`…`f` as UTF-8.
    public static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends the two hex digits of `byte` to `output`.
    @inlinable
    public static func append(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(digits[Int(byte >> 4)])
        output.append(digits[Int(byte & 0x0F)])
    }

    /// The hex text of `bytes`, two digits a byte, without going through `String(format:)` per byte.
    public static func string<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes { append(byte, to: &text) }
        return String(decoding: text, as: UTF8.self)
    }
}
