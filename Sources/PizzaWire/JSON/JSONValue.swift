/// A JSON document: what travels on the control socket.
///
/// Objects keep their keys in order, so responses read well (`id` first) and output is deterministic.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// JSON text this process encoded (an order's wire form), written into a response as it is. The parser never
    /// makes one, so requests never hold one; reading into it (`value["id"]`) finds nothing.
    case encoded(String)

    /// Equal values: numbers compare by value (`1` equals `1.0`), objects member by member in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Double(a) == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.encoded(let a), .encoded(let b)): a == b
        case (.object(let a), .object(let b)):
            // Objects keep their members in order (repeated names included), so equal means the same members in
            // the same order.
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The member `key` of an object (the first, if repeated), or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The element at `index` of an array, or nil.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The string, or nil when it is not one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The whole number (a double without a fraction too, below 9e15), or nil.
    public var intValue: Int64? {
        switch self {
        case .int(let i): i
        case .double(let d) where d.rounded() == d && abs(d) < 9e15: Int64(d)
        default: nil
        }
    }
    /// The boolean, or nil when it is not one.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The elements, or nil when it is not an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The members in order, or nil when it is not an object.
    public var objectValue: [(String, JSONValue)]? { if case .object(let o) = self { o } else { nil } }
    /// Whether it is `null`.
    public var isNull: Bool { self == .null }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        case .encoded: "JSON text"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// A string, or null when nil.
    public static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// An integer, or null when nil.
    public static func int(_ value: Int64?) -> JSONValue { value.map(JSONValue.int) ?? .null }
}
