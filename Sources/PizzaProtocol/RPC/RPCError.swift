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
    /// The socket's form of a domain error: its kind's code, its sentence, its details as `data` (`field` and
    /// `allowed` for a validation, `status` and `allowed` for a transition, `expected` and `status` for a conflict).
    public init(_ failure: any DomainFailure) {
        let code: RPCErrorCode =
            switch failure.kind {
            case .notFound: .notFound
            case .invalidTransition: .invalidTransition
            case .conflict: .conflict
            case .validation: .validation
            case .permissionDenied: .permissionDenied
            case .storage: .storage
            case .overloaded: .overloaded
            case .internal: .internalError
            }
        let details = failure.details
        var data: [(String, JSONValue)] = []
        if let field = details.field { data.append(("field", .string(field))) }
        if let expected = details.expected { data.append(("expected", .string(expected))) }
        if let status = details.status { data.append(("status", .string(status))) }
        if let allowed = details.allowed { data.append(("allowed", .array(allowed.map(JSONValue.string)))) }
        if let item = details.item { data.append(("item", .string(item))) }
        if let reason = details.reason { data.append(("reason", .string(reason))) }
        self.init(code, failure.explanation, data: data.isEmpty ? nil : .object(data))
    }

    /// The socket's form of a pizza that could not be made; `path` prefixes the field (`items[1].size`).
    public init(_ error: PizzaError, path: String = "") {
        self = .validation(path + error.field, error.description, allowed: error.allowed)
    }
}

extension RPCError: DomainFailure {
    /// The kind of a socket error: a request the socket could not read is the caller's (`validation`).
    public var kind: FailureKind {
        switch code {
        case .notFound, .methodNotFound: .notFound
        case .invalidTransition: .invalidTransition
        case .conflict: .conflict
        case .validation, .invalidParams, .parseError, .invalidRequest, .unsupportedVersion: .validation
        case .permissionDenied: .permissionDenied
        case .storage: .storage
        case .overloaded: .overloaded
        case .internalError: .internal
        }
    }

    /// The message, without the code's name.
    public var explanation: String { message }

    /// `field`, `status`, `expected` and `allowed` from `data`.
    public var details: FailureDetails {
        FailureDetails(
            field: data?["field"]?.stringValue, status: data?["status"]?.stringValue,
            expected: data?["expected"]?.stringValue, allowed: data?["allowed"]?.arrayValue?.compactMap(\.stringValue))
    }
}
