/// Encodes a `Codable` answer into a ``JSONValue``, the form the control socket writes: members in the order the
/// type declares them, and an absent optional as `null` (the contract's answers name every field, set or not).
///
/// A ``JSONValue`` inside the value is taken as it is (an order's `.encoded` wire text stays text).
public struct JSONValueEncoder: Sendable {
    /// An encoder.
    public init() {}

    /// `value` as JSON.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = Slot()
        try root.store(value, path: [])
        return root.json
    }
}

/// One place in the document being written: empty until a container or a value fills it.
final class Slot {
    enum Content {
        case empty
        case value(JSONValue)
        case object([(String, Slot)])
        case array([Slot])
    }

    var content = Content.empty

    var json: JSONValue {
        switch content {
        case .empty: .null
        case .value(let value): value
        case .object(let members): .object(members.map { ($0.0, $0.1.json) })
        case .array(let elements): .array(elements.map(\.json))
        }
    }

    /// Writes `value` here: a JSON value as it is, anything else through its `encode(to:)`.
    func store<T: Encodable>(_ value: T, path: [any CodingKey]) throws {
        if let json = value as? JSONValue {
            content = .value(json)
        } else {
            try value.encode(to: SlotEncoder(slot: self, codingPath: path))
        }
    }

    func append(_ key: String) -> Slot {
        let child = Slot()
        if case .object(var members) = content {
            content = .empty  // one reference to the array, so the append does not copy it
            members.append((key, child))
            content = .object(members)
        } else {
            content = .object([(key, child)])
        }
        return child
    }

    func appendElement() -> Slot {
        let child = Slot()
        if case .array(var elements) = content {
            content = .empty
            elements.append(child)
            content = .array(elements)
        } else {
            content = .array([child])
        }
        return child
    }
}

struct SlotEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.content {} else { slot.content = .object([]) }
        return KeyedEncodingContainer(KeyedSlot<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.content {} else { slot.content = .array([]) }
        return UnkeyedSlot(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleSlot(slot: slot, codingPath: codingPath)
    }
}

/// The JSON form of each primitive `Codable` writes (every one, so that none falls back to its own
/// `encode(to:)`, which would ask for itself again).
enum Primitive {
    static func json<T: Encodable>(_ value: T) -> JSONValue? {
        switch value {
        case let value as String: .string(value)
        case let value as Bool: .bool(value)
        case let value as Int64: .int(value)
        case let value as any BinaryInteger:
            // A UInt64 past Int64.max is written as a double, rounded: the protocol's numbers are Int64.
            Int64(exactly: value).map(JSONValue.int) ?? .double(Double(value))
        case let value as Double: .double(value)
        case let value as Float: .double(Double(value))
        default: nil
        }
    }
}

struct KeyedSlot<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { slot.append(key.stringValue).content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let child = slot.append(key.stringValue)
        if let primitive = Primitive.json(value) {
            child.content = .value(primitive)
        } else {
            try child.store(value, path: codingPath + [key])
        }
    }

    // The standard library's defaults skip an absent optional; the contract's answers write it as null.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try optional(value, key) }

    private mutating func optional<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        SlotEncoder(slot: slot.append(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        SlotEncoder(slot: slot.append(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        SlotEncoder(slot: slot.append("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(slot: slot.append(key.stringValue), codingPath: codingPath + [key])
    }
}

struct UnkeyedSlot: UnkeyedEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]
    var count: Int { if case .array(let elements) = slot.content { elements.count } else { 0 } }

    mutating func encodeNil() throws { slot.appendElement().content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let child = slot.appendElement()
        if let primitive = Primitive.json(value) {
            child.content = .value(primitive)
        } else {
            try child.store(value, path: codingPath + [IndexKey(count - 1)])
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        SlotEncoder(slot: slot.appendElement(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        SlotEncoder(slot: slot.appendElement(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { SlotEncoder(slot: slot.appendElement(), codingPath: codingPath) }
}

struct SingleSlot: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let primitive = Primitive.json(value) {
            slot.content = .value(primitive)
        } else {
            try slot.store(value, path: codingPath)
        }
    }
}

/// An array element's place in a coding path.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "[\(intValue ?? 0)]" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
