#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A UTC instant with millisecond precision, written as ISO-8601 text (`2026-11-21T09:30:00.123Z`).
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64

    /// The instant `millisecondsSince1970` after the epoch.
    public init(millisecondsSince1970: Int64) { self.millisecondsSince1970 = millisecondsSince1970 }

    /// The current wall-clock time.
    public static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millisecondsSince1970: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    /// Earlier first.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// ISO-8601 in UTC with milliseconds, e.g. `2026-11-21T09:30:00.123Z`.
    public var description: String {
        String(unsafeUninitializedCapacity: Self.maximumISO8601Length) { writeISO8601(into: $0) }
    }

    /// The longest text ``writeISO8601(into:)`` writes: a year of up to 20 characters (sign and digits), then 20.
    public static let maximumISO8601Length = 40

    /// Writes ``description``'s text into `buffer` (at least ``maximumISO8601Length`` bytes) and returns its length:
    /// straight into the bytes, for every stored row and every answer carries a few of these, and interpolation
    /// with padding cost several allocations each. Years past 9999 (or before 0) are longer.
    public func writeISO8601(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        precondition(buffer.count >= Self.maximumISO8601Length)
        let ms = millisecondsSince1970
        // Floor division and its remainder, written so that neither overflows, even at `Int64.min`.
        let days = ms >= 0 ? ms / 86_400_000 : -((-(ms + 1)) / 86_400_000) - 1
        let msOfDay = (ms % 86_400_000 + 86_400_000) % 86_400_000
        let (year, month, day) = Self.civil(fromDays: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let milli = msOfDay % 1000
        func put(_ value: Int64, _ width: Int, at offset: Int) {
            var value = value
            for index in stride(from: offset + width - 1, through: offset, by: -1) {
                buffer[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
            }
        }
        let yearWidth: Int
        if (0...9999).contains(year) {
            put(year, 4, at: 0)
            yearWidth = 4
        } else {
            let yearText = pad(year, 4).utf8
            _ = UnsafeMutableBufferPointer(rebasing: buffer[..<yearText.count]).initialize(fromContentsOf: yearText)
            yearWidth = yearText.count
        }
        // Each field after the year: its separator, then its digits.
        func field(_ separator: Unicode.Scalar, _ value: Int64, _ width: Int, at offset: Int) {
            buffer[yearWidth + offset] = UInt8(ascii: separator)
            put(value, width, at: yearWidth + offset + 1)
        }
        field("-", month, 2, at: 0)
        field("-", day, 2, at: 3)
        field("T", hour, 2, at: 6)
        field(":", minute, 2, at: 9)
        field(":", second, 2, at: 12)
        field(".", milli, 3, at: 15)
        buffer[yearWidth + 19] = UInt8(ascii: "Z")
        return yearWidth + 20
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` or a date `YYYY-MM-DD` (midnight UTC); nil when malformed.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var ms = Self.days(year: year, month: month, day: day) * 86_400_000
        if bytes.count > 10 {
            guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                hour < 24, minute < 60, second < 61
            else { return nil }
            ms += (hour * 3600 + minute * 60 + second) * 1000
            var index = 19
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                var digits = 0
                var fraction: Int64 = 0
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                    if digits < 3 { fraction = fraction * 10 + Int64(bytes[index] - 48) }
                    digits += 1
                    index += 1
                }
                guard digits > 0 else { return nil }
                // Milliseconds: pad "5" to 500; digits past the third were ignored above.
                if digits < 3 { for _ in digits..<3 { fraction *= 10 } }
                ms += fraction
            }
            guard index == bytes.count - 1, bytes[index] == UInt8(ascii: "Z") else { return nil }
        }
        self.millisecondsSince1970 = ms
    }

    /// Reads the ISO-8601 text ``description`` writes.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not ISO-8601"))
        }
        self = parsed
    }

    /// Writes ``description``, ISO-8601 text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    // Howard Hinnant's days-from-civil and civil-from-days algorithms.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}
