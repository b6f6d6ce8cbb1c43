/// Lowercase hexadecimal text of bytes (digests, escapes), the one place pizzad writes hex.
public enum Hex {
    /// Appends the two hex digits of `byte` to `output`.
    @inlinable
    public static func append(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(digit(byte >> 4))
        output.append(digit(byte & 0x0F))
    }

    /// The hex text of `bytes` (a digest's, through its `withUnsafeBytes`), two digits a byte, written straight
    /// into the string's own storage: one allocation, the string's.
    public static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var index = 0
            for byte in bytes {
                text[index] = digit(byte >> 4)
                text[index + 1] = digit(byte & 0x0F)
                index += 2
            }
            return index
        }
    }

    /// The UTF-8 digit for a value 0…15: `0`…`9`, `a`…`f`.
    @usableFromInline @inline(__always)
    static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }
}
