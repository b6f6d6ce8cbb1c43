import PizzaProtocol
import Testing

@Suite("The request decoder")
struct JSONParserTests {
    @Test("documents written out parse back to themselves")
    func roundTrip() throws {
        for text in [
            #"{"a":1,"b":[true,false,null],"c":{"d":"\u00e9\ud83c\udf55\n\"\\"},"e":-0.5,"f":1e10}"#,
            #"[]"#, #"{}"#, #""\u0001""#, #"9223372036854775807"#,
        ] {
            let value = try JSONParser.parse(text)
            #expect(try JSONParser.parse(value.jsonText) == value, "\(text)")
        }
    }

    @Test("invalid UTF-8, deep nesting, bad escapes and trailing text are parse errors")
    func rejects() {
        let cases: [[UInt8]] = [
            [0x22, 0x73, 0x69, 0x86, 0x94, 0x22],  // invalid UTF-8 inside a string (found by the fuzzer)
            Array(String(repeating: "[", count: 100).utf8),
            Array(#""\ud800""#.utf8), Array(#""\x""#.utf8), Array("{} {}".utf8), Array("01".utf8),
            Array("\"a\nb\"".utf8),
        ]
        for bytes in cases {
            #expect(throws: JSONParser.Error.self) { try JSONParser.parse(bytes) }
        }
    }

    @Test("objects compare member by member, in order, repeated names included")
    func orderedEquality() throws {
        #expect(try JSONParser.parse(#"{"a":1,"a":2}"#) != JSONParser.parse(#"{"a":1,"a":1}"#))
        #expect(try JSONParser.parse(#"{"a":1,"b":2}"#) == JSONParser.parse(#"{"a":1,"b":2}"#))
    }
}
