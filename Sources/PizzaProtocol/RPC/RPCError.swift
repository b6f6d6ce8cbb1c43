public import PizzaCore
public import PizzaWire

/// An error as the control socket sends it: `{"code", "message", "data"}`.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error's code (CONTRACT section 4).
    public var code: RPCErrorCode
    /// The error in a sentence.
    public var message: String
    /// Details; for `validation`, `{"field", "allowed"}`.
    public var data: JSONValue?

    /// An error with its code, message and data (the field, the allowed values).
    public init(_ code: RPCErrorCode, _ message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(code.name): \(message)" }

    /// The error object for a response.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("code", .int(Int64(code.rawValue))), ("message", .string(message))]
        var details: [(String, JSONValue)] = [("name", .string(code.name))]
        if case .object(let extra)? = data { details += extra } else if let data { details.append(("detail", data)) }
        members.append(("data", .object(details)))
        return .object(members)
    }

    /// Reads an error object from a response.
    public init?(json: JSONValue) {
        guard let code = json["code"]?.intValue, let message = json["message"]?.stringValue else { return nil }
        self.code = RPCErrorCode(rawValue: Int(code)) ?? .internalError
        self.message = message
        self.data = json["data"]
    }

    /// A `validation` error naming the field and what it allows.
    public static func validation(_ field: String, _ message: String, allowed: [String]) -> RPCError {
        RPCError(
            .validation, message, data: ["field": .string(field), "allowed": .array(allowed.map(JSONValue.string))])
    }

    /// An `invalid params` error naming the field and the type it must have.
    public static func invalidParams(_ field: String, _ message: String, expected: String) -> RPCError {
        RPCError(.invalidParams, message, data: ["field": .string(field), "allowed": .array([.string(expected)])])
    }
}

extension RPCError {
    /// The socket's form of a domain error.
    public init(_ error: OrderError) {
        switch error {
        case .notFound, .itemNotFound: self.init(.notFound, error.description)
        case .invalidTransition(_, let invalid):
            self.init(
                .invalidTransition, error.description,
                data: [
                    "status": .string(invalid.from.rawValue),
                    "allowed": .array(invalid.allowed.map { .string($0.rawValue) }),
                ])
        case .notOpen(_, let status):
            self.init(.invalidTransition, error.description, data: ["status": .string(status.rawValue)])
        case .emptyCart: self.init(.invalidTransition, error.description, data: ["field": "items"])
        case .conflict(_, let expected, let actual):
            self.init(
                .conflict, error.description,
                data: ["expected": .string(expected.rawValue), "status": .string(actual.rawValue)])
        case .validation(let field, let allowed, let message): self = .validation(field, message, allowed: allowed)
        }
    }

    /// The socket's form of a pizza that could not be made; `path` prefixes the field (`items[1].size`).
    public init(_ error: PizzaError, path: String = "") {
        self = .validation(path + error.field, error.description, allowed: error.allowed)
    }
}
