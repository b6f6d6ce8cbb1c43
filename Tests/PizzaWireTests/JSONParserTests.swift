import PizzaWire
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

    @Test("integers fill 64 bits, past that a number is a double; strings keep their text, ASCII or not")
    func numbersAndStrings() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONParser.parse("-0") == .int(0))
        #expect(try JSONParser.parse("[0,-7,42]") == .array([.int(0), .int(-7), .int(42)]))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONParser.parse("-9223372036854775809") == .double(-9_223_372_036_854_775_808))
        #expect(try JSONParser.parse("12.5e1") == .double(125))
        #expect(try JSONParser.parse(#""pizza""#) == .string("pizza"))
        #expect(try JSONParser.parse(#""crème brûlée 🍕""#) == .string("crème brûlée 🍕"))
        #expect(try JSONParser.parse(#""a\tb é""#) == .string("a\tb é"))
        // Invalid UTF-8 after ASCII, and a lone continuation byte, with and without an escape before it.
        for bytes: [UInt8] in [[0x22, 0x61, 0xC3, 0x22], [0x22, 0x80, 0x22], [0x22, 0x5C, 0x6E, 0xFF, 0x22]] {
            #expect(throws: JSONParser.Error.self) { try JSONParser.parse(bytes) }
        }
    }

    @Test("objects compare member by member, in order, repeated names included")
    func orderedEquality() throws {
        #expect(try JSONParser.parse(#"{"a":1,"a":2}"#) != JSONParser.parse(#"{"a":1,"a":1}"#))
        #expect(try JSONParser.parse(#"{"a":1,"b":2}"#) == JSONParser.parse(#"{"a":1,"b":2}"#))
    }
}
