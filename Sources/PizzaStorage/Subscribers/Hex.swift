/// Lowercase hexadecimal text of bytes (digests), without going through `String(format:)` per byte.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func string<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
