public import PizzaCore
public import PizzaWire

/// A request's params, with typed accessors that throw `invalid_params` naming the field.
public struct Params: Sendable {
    /// The members, in the order the request gave them.
    public var members: [(String, JSONValue)]

    /// Params holding `members`.
    public init(_ members: [(String, JSONValue)] = []) { self.members = members }

    /// The member `key` (the first, if repeated), or nil when it is absent or null.
    public subscript(key: String) -> JSONValue? {
        guard let value = members.first(where: { $0.0 == key })?.1 else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// Fails when a member is not one of `known` (a typo should not be ignored silently).
    ///
    /// An array, not a set: a method knows a handful of names, and a set literal was built and hashed on every
    /// request.
    public func onlyKnown(_ known: [String]) throws(RPCError) {
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw .invalidParams(
                unknown.0, "unknown parameter '\(unknown.0)'; expected: \(known.sorted().joined(separator: ", "))",
                expected: known.sorted().joined(separator: "|"))
        }
    }

    /// The string at `key`; nil when absent or null; `invalid_params` naming the key when it is another type.
    public func string(_ key: String) throws(RPCError) -> String? {
        guard let value = self[key] else { return nil }
        guard let string = value.stringValue else {
            throw .invalidParams(key, "\(key) must be a string, not \(value.typeName)", expected: "string")
        }
        return string
    }

    /// The string at `key`; `invalid_params` naming the key when it is absent or another type.
    public func requiredString(_ key: String) throws(RPCError) -> String {
        guard let value = try string(key) else {
            throw .invalidParams(key, "\(key) is required", expected: "string")
        }
        return value
    }

    /// The whole number at `key`; nil when absent or null; `invalid_params` when it is another type.
    public func int(_ key: String) throws(RPCError) -> Int64? {
        guard let value = self[key] else { return nil }
        guard let int = value.intValue else {
            throw .invalidParams(key, "\(key) must be an integer, not \(value.typeName)", expected: "integer")
        }
        return int
    }

    /// The whole number at `key`; `invalid_params` when it is absent or another type.
    public func requiredInt(_ key: String) throws(RPCError) -> Int64 {
        guard let value = try int(key) else { throw .invalidParams(key, "\(key) is required", expected: "integer") }
        return value
    }

    /// The boolean at `key`; nil when absent or null; `invalid_params` when it is another type.
    public func bool(_ key: String) throws(RPCError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard let bool = value.boolValue else {
            throw .invalidParams(key, "\(key) must be true or false, not \(value.typeName)", expected: "boolean")
        }
        return bool
    }

    /// The array at `key`; nil when absent or null; `invalid_params` when it is another type.
    public func array(_ key: String) throws(RPCError) -> [JSONValue]? {
        guard let value = self[key] else { return nil }
        guard let array = value.arrayValue else {
            throw .invalidParams(key, "\(key) must be an array, not \(value.typeName)", expected: "array")
        }
        return array
    }

    /// The order status named at `key`; nil when absent; an error naming the allowed statuses when unknown.
    public func status(_ key: String) throws(RPCError) -> OrderStatus? {
        guard let text = try string(key) else { return nil }
        guard let status = OrderStatus(rawValue: text) else {
            throw .validation(key, "unknown status '\(text)'", allowed: OrderStatus.allCases.map(\.rawValue))
        }
        return status
    }

    /// The time at `key` (`YYYY-MM-DD` or ISO-8601 UTC); nil when absent; an error when it does not read as one.
    public func timestamp(_ key: String) throws(RPCError) -> Timestamp? {
        guard let text = try string(key) else { return nil }
        guard let time = Timestamp(iso8601: text) else {
            throw .validation(
                key, "'\(text)' is not an ISO-8601 time", allowed: ["YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS.sssZ"])
        }
        return time
    }

    /// The fulfilment type named at `key` (`pickup`, `delivery`, `dinein`); nil when absent.
    public func fulfilmentType(_ key: String) throws(RPCError) -> Fulfilment.Kind? {
        guard let text = try string(key) else { return nil }
        guard let type = Fulfilment.Kind(rawValue: text) else {
            throw .validation(
                key, "unknown fulfilment type '\(text)'", allowed: Fulfilment.Kind.allCases.map(\.rawValue))
        }
        return type
    }

    /// The order of a page named at `key` (`newest`, `due`); `newest` when absent.
    public func sort(_ key: String) throws(RPCError) -> OrderQuery.Sort {
        guard let text = try string(key) else { return .newest }
        guard let sort = OrderQuery.Sort(rawValue: text) else {
            throw .validation(key, "unknown sort '\(text)'", allowed: OrderQuery.Sort.allCases.map(\.rawValue))
        }
        return sort
    }
}
