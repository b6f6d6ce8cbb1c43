/// A JSON value inside a `Codable` type: through ``JSONValueEncoder`` and ``JSONValueDecoder`` it is taken as it
/// is; through any other coder it is written and read member by member.
extension JSONValue: Codable {
    /// Reads whatever JSON is there.
    public init(from decoder: any Decoder) throws {
        if let direct = decoder as? ValueDecoder {
            self = direct.value
            return
        }
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(try keyed.allKeys.map { ($0.stringValue, try keyed.decode(JSONValue.self, forKey: $0)) })
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? single.decode(Int64.self) {
            self = .int(int)
        } else if let double = try? single.decode(Double.self) {
            self = .double(double)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    /// Writes the value.
    public func encode(to encoder: any Encoder) throws {
        if let slot = encoder as? SlotEncoder {
            slot.slot.content = .value(self)
            return
        }
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case .int(let int):
            var single = encoder.singleValueContainer()
            try single.encode(int)
        case .double(let double):
            var single = encoder.singleValueContainer()
            try single.encode(double)
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .array(let elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements { try unkeyed.encode(element) }
        case .object(let members):
            var keyed = encoder.container(keyedBy: AnyKey.self)
            for (name, member) in members { try keyed.encode(member, forKey: AnyKey(name)) }
        case .encoded(let text):
            try ((try? JSONParser.parse(text)) ?? .string(text)).encode(to: encoder)
        }
    }
}

/// Any member name.
struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
