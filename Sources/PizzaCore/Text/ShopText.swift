@_spi(_Unicode) import Swift

/// Text a person typed that others will see (a customer's name, a note, a reason, a ref): checked once where it
/// comes in, so that nothing stored can hurt a terminal, a kitchen printer or the board.
///
/// Refused: C0 and C1 control characters and DEL (a note keeps its line feeds), the bidirectional overrides and
/// isolates (U+202A-U+202E, U+2066-U+2069: "Trojan Source" text that reads differently than it is), more than
/// ``maximumMarks`` combining marks on one character (a name of "a" and 3,000 accents is one character and 3 KB on
/// a ticket), and more bytes than the limit beside the limit in characters. Display text is stored NFC-normalised,
/// so that "é" typed two ways is one name; a `ref` is stored as sent (a retry must find its order by the same bytes).
public enum ShopText {
    /// The most combining marks one character may carry (Vietnamese needs two; Zalgo text dozens).
    public static let maximumMarks = 4

    /// Why `text` is refused for `field`, or nil: at most `characters` characters and `bytes` UTF-8 bytes, none of
    /// the characters above; line feeds only where `lineFeeds` allows them.
    public static func refusal(
        _ text: String, field: String, characters: ClosedRange<Int>, bytes: Int, lineFeeds: Bool = false
    ) -> OrderError? {
        // Made only for a refusal: the interpolated text is an allocation, and most texts pass.
        func length(_ count: Int) -> OrderError {
            let limits = "\(characters.lowerBound)..\(characters.upperBound) characters"
            return .validation(
                field: field, allowed: [limits],
                message: count > characters.upperBound
                    ? "\(field) is longer than \(characters.upperBound) characters"
                    : "\(field) must be \(limits)")
        }
        guard text.utf8.count <= bytes else {
            return .validation(
                field: field, allowed: ["at most \(bytes) bytes (UTF-8)"],
                message: "\(field) is longer than \(bytes) bytes (UTF-8)")
        }
        // Printable ASCII (nearly every till's text): every byte a character, nothing more to look at.
        let ascii = text.utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || ($0 == 0x0A && lineFeeds) }
        if ascii {
            return characters.contains(text.utf8.count) ? nil : length(text.utf8.count)
        }
        for scalar in text.unicodeScalars {
            if let what = Self.forbidden(scalar, lineFeeds: lineFeeds) {
                return .validation(
                    field: field, allowed: ["printable text" + (lineFeeds ? " and line feeds" : "")],
                    message: "\(field) must not hold \(what) (U+\(Self.hex(scalar.value)))")
            }
        }
        var count = 0
        for character in text {
            count += 1
            var marks = 0
            for scalar in character.unicodeScalars where Self.isMark(scalar) { marks += 1 }
            guard marks <= maximumMarks else {
                return .validation(
                    field: field, allowed: ["at most \(maximumMarks) combining marks on a character"],
                    message: "\(field) has a character with \(marks) combining marks")
            }
        }
        return characters.contains(count) ? nil : length(count)
    }

    /// `text` in Unicode normalisation form C (composed: "e" and U+0301 become "é"); ASCII as it is.
    public static func normalized(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text._nfcCodeUnits { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What `scalar` is, if it may not be in shop text.
    static func forbidden(_ scalar: Unicode.Scalar, lineFeeds: Bool) -> String? {
        switch scalar.value {
        case 0x0A where lineFeeds: nil
        case 0x00..<0x20, 0x7F: "a control character"
        case 0x80..<0xA0: "a C1 control character"
        case 0x202A...0x202E, 0x2066...0x2069: "a bidirectional override"
        default: nil
        }
    }

    /// Whether `scalar` is a combining mark.
    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `text` with anything unprintable shown as an escape (`\u{1B}`), for a terminal: what pizzactl shows of text it
    /// did not check itself (an audit entry written before these checks, a damaged copy).
    /// Line feeds stay where `lineFeeds` allows them (a note shown whole).
    public static func escaped(_ text: String, lineFeeds: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { forbidden($0, lineFeeds: lineFeeds) != nil }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if forbidden(scalar, lineFeeds: lineFeeds) != nil {
                out += "\\u{\(hex(scalar.value))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
