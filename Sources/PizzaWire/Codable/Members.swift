/// A JSON object of one value type whose members keep their order (prices per size, counts per status), as a
/// `Codable` field: a Swift dictionary would reorder them.
public struct Members<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The members in order.
    public var members: [Member]

    /// One member.
    public struct Member: Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its value.
        public var value: Value

        /// A member.
        public init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// Members from name and value pairs, in order.
    public init(_ pairs: [(String, Value)]) { members = pairs.map { Member($0.0, $0.1) } }

    /// The value of the member `name`, or nil.
    public subscript(name: String) -> Value? { members.first { $0.name == name }?.value }

    /// Reads an object whose every member is a `Value`, in order.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        members = try container.allKeys.map { Member($0.stringValue, try container.decode(Value.self, forKey: $0)) }
    }

    /// Writes the object, in order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for member in members { try container.encode(member.value, forKey: AnyKey(member.name)) }
    }
}
