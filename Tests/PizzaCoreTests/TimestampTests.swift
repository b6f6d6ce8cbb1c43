import PizzaCore
import Testing

@Suite("Timestamp")
struct TimestampTests {
    @Test("written as YYYY-MM-DDTHH:MM:SS.fffZ and read back to the millisecond")
    func roundTrip() {
        for ms: Int64 in [0, 1, 999, 86_399_999, 951_782_400_000, 1_700_000_000_123, 4_102_444_800_000] {
            let stamp = Timestamp(millisecondsSince1970: ms)
            #expect(Timestamp(iso8601: stamp.description) == stamp, "\(stamp)")
        }
        #expect(Timestamp(millisecondsSince1970: 951_782_400_000).description == "2000-02-29T00:00:00.000Z")
    }

    @Test("a date alone is midnight UTC; a space may stand for T; more fraction digits are cut to milliseconds")
    func lenientForms() {
        #expect(Timestamp(iso8601: "2026-11-23") == Timestamp(iso8601: "2026-11-23T00:00:00Z"))
        #expect(Timestamp(iso8601: "2026-11-23 12:30:00Z") == Timestamp(iso8601: "2026-11-23T12:30:00Z"))
        #expect(Timestamp(iso8601: "2026-11-23T12:30:00.123456Z") == Timestamp(iso8601: "2026-11-23T12:30:00.123Z"))
    }

    @Test("malformed text is nil, not a guess")
    func rejects() {
        for text in [
            "", "2026", "2026-13-01", "2026-00-10", "2026-11-32", "2026-11-23T24:00:00Z", "2026-11-23T12:60:00Z",
            "2026/11/23", "yesterday", "2026-11-23T12:30",
        ] {
            #expect(Timestamp(iso8601: text) == nil, "\(text)")
        }
    }

    @Test("ordered by time")
    func order() {
        #expect(Timestamp(millisecondsSince1970: 1) < Timestamp(millisecondsSince1970: 2))
        #expect(Timestamp(iso8601: "2025-12-31T23:59:59.999Z")! < Timestamp(iso8601: "2026-01-01")!)
    }
}
