import PizzaCore
import PizzaWire
import Testing

/// The bridge between `Codable` answers and the socket's ``JSONValue``: members in declared order, absent optionals
/// as null, numbers exact, and errors that name the member.
@Suite("Codable through JSONValue")
struct JSONValueCodingTests {
    struct Inner: Codable, Equatable {
        var name: String
        var small: Int8
        var big: UInt64
        var ratio: Float
    }

    struct Outer: Codable, Equatable {
        var id: Int64
        var note: String?
        var flags: [Bool]
        var inner: Inner?
        var raw: JSONValue
        var counts: Members<Int64>
    }

    @Test("members in declared order, nil as null, JSON values as they are, and back")
    func roundTrip() throws {
        let value = Outer(
            id: .max, note: nil, flags: [true, false],
            inner: Inner(name: "é\"\n", small: -128, big: 42, ratio: 0.5),
            raw: .object([("z", .int(1)), ("a", .array([.null]))]),
            counts: Members([("placed", 2), ("open", 1)]))
        let json = try JSONValueEncoder().encode(value)
        #expect(
            json.jsonText
                == #"{"id":9223372036854775807,"note":null,"flags":[true,false],"inner":{"name":"é\"\n","small":-128,"big":42,"ratio":0.5},"raw":{"z":1,"a":[null]},"counts":{"placed":2,"open":1}}"#
        )
        #expect(try JSONValueDecoder().decode(Outer.self, from: json) == value)
        // A missing optional reads as nil, like null.
        let members = try #require(json.objectValue).filter { $0.0 != "note" && $0.0 != "inner" }
        #expect(try JSONValueDecoder().decode(Outer.self, from: .object(members)).inner == nil)
    }

    @Test("a number that does not fit its type, a missing member and a wrong type name where they are")
    func errors() throws {
        let tooBig = JSONValue.object([("name", "x"), ("small", 128), ("big", 1), ("ratio", 1)])
        #expect {
            try JSONValueDecoder().decode(Inner.self, from: tooBig)
        } throws: { error in
            guard case .typeMismatch(_, let context) = error as? DecodingError else { return false }
            return context.codingPath.map(\.stringValue) == ["small"]
        }
        let negative = JSONValue.object([("name", "x"), ("small", 1), ("big", -1), ("ratio", 1)])
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Inner.self, from: negative) }
        let missing = JSONValue.object([("name", "x"), ("small", 1), ("ratio", 1)])
        #expect {
            try JSONValueDecoder().decode(Inner.self, from: missing)
        } throws: { error in
            guard case .keyNotFound(let key, _) = error as? DecodingError else { return false }
            return key.stringValue == "big"
        }
        let nested = JSONValue.object([
            ("id", 1), ("note", .null), ("flags", [true, "no"]), ("inner", .null), ("raw", .null), ("counts", [:]),
        ])
        #expect {
            try JSONValueDecoder().decode(Outer.self, from: nested)
        } throws: { error in
            guard case .typeMismatch(_, let context) = error as? DecodingError else { return false }
            return context.codingPath.map(\.stringValue) == ["flags", "[1]"]
        }
    }

    @Test("whole numbers written as 1.0 read as integers; a fraction does not")
    func wholeDoubles() throws {
        #expect(try JSONValueDecoder().decode(Int64.self, from: .double(3)) == 3)
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int64.self, from: .double(3.5)) }
        #expect(try JSONValueDecoder().decode(Double.self, from: .int(3)) == 3)
    }

    @Test("an order is its one wire form both ways")
    func order() throws {
        let actor = ChangeActor(uid: 1, name: "ada", pid: 2)
        let at = Timestamp(millisecondsSince1970: 0)
        let cart = Cart(
            id: 7, ref: "T-1", customer: nil, note: nil, status: .open, items: [], currency: "EUR", createdAt: at,
            updatedAt: at, history: [StatusChange(from: nil, to: .open, at: at, actor: actor, reason: nil)])
        let json = try JSONValueEncoder().encode([cart])
        #expect(json == .array([cart.wire]))
        #expect(try JSONValueDecoder().decode([Cart].self, from: json).map(\.wireText) == [cart.wireText])
    }
}
