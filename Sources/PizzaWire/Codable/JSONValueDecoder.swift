/// Decodes a `Codable` answer from a ``JSONValue``, the form the control socket reads. A member the type needs that
/// is missing or of another type is a `DecodingError` naming its path: a renamed field fails, it does not print "-".
///
/// Whole numbers read as `Int`/`Int64` also when written `1.0`; a `Double` reads from either form. Members the type
/// does not know are ignored (a newer daemon may add fields; the contract only adds).
public struct JSONValueDecoder: Sendable {
    /// A decoder.
    public init() {}

    /// `json` as a `T`.
    public func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws -> T {
        try ValueDecoder(value: json, codingPath: []).read(type)
    }
}

struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: JSONValue, codingPath: [any CodingKey]) {
        // Text this process encoded (an order's wire form) reads as what it says.
        if case .encoded(let text) = value, let parsed = try? JSONParser.parse(text) {
            self.value = parsed
        } else {
            self.value = value
        }
        self.codingPath = codingPath
    }

    func read<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self, let value = value as? T { return value }
        if let primitive = try primitive(type) { return primitive }
        return try T(from: self)
    }

    /// `T` read directly when it is a primitive, nil when it is not one.
    func primitive<T>(_ type: T.Type) throws -> T? {
        func mismatch(_ expected: String) -> DecodingError {
            .typeMismatch(
                type, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value.typeName)"))
        }
        if type == String.self {
            guard let string = value.stringValue else { throw mismatch("a string") }
            return string as? T
        }
        if type == Bool.self {
            guard let bool = value.boolValue else { throw mismatch("a boolean") }
            return bool as? T
        }
        if let integer = type as? any FixedWidthInteger.Type {
            guard let int = value.intValue else { throw mismatch("a whole number") }
            guard let exact = integer.init(exactly: int) else { throw mismatch("a whole number that fits \(type)") }
            return exact as? T
        }
        if type == Double.self {
            switch value {
            case .double(let double): return double as? T
            case .int(let int): return Double(int) as? T
            default: throw mismatch("a number")
            }
        }
        if type == Float.self {
            guard let double = try primitive(Double.self) else { return nil }
            return Float(double) as? T
        }
        return nil
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let members = value.objectValue else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: codingPath, debugDescription: "expected an object, found \(value.typeName)"))
        }
        return KeyedDecodingContainer(KeyedValues<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = value.arrayValue else {
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(codingPath: codingPath, debugDescription: "expected an array, found \(value.typeName)"))
        }
        return ArrayValues(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValue(decoder: self) }
}

struct KeyedValues<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(String, JSONValue)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.0) } }

    func contains(_ key: Key) -> Bool { members.contains { $0.0 == key.stringValue } }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members.first(where: { $0.0 == key.stringValue })?.1 else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "no member '\(key.stringValue)'"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).read(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members.first { $0.0 == "super" }?.1 ?? .null, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: try member(key), codingPath: codingPath + [key])
    }
}

struct ArrayValues: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    private mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "the array has \(elements.count) elements"))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: elements[currentIndex], codingPath: codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().read(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

struct SingleValue: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.read(type) }
}
