public import PizzaWire

/// A method's result as one Codable type: the daemon encodes it, pizzactl and the tests decode it, so a field
/// renamed on one side is a decoding error on the other, not a "-" in a table.
public protocol Answer: Codable, Sendable {}

extension Answer {
    /// The answer as the control socket writes it.
    public var json: JSONValue {
        get throws { try JSONValueEncoder().encode(self) }
    }

    /// The answer read from what the control socket read; a `DecodingError` names the member that is missing or
    /// of another type.
    public init(json: JSONValue) throws { self = try JSONValueDecoder().decode(Self.self, from: json) }
}

/// An answer that did not decode, said so a person can act on it: which method, which member.
public struct AnswerError: Error, CustomStringConvertible, Sendable {
    /// The method whose answer it was.
    public var method: String
    /// What did not fit.
    public var problem: String

    /// The error for `method`, from the decoding error.
    public init(method: String, _ error: any Error) {
        self.method = method
        if let decoding = error as? DecodingError {
            switch decoding {
            case .keyNotFound(let key, let context):
                problem = "no member \(Self.path(context.codingPath + [key]))"
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                problem = "\(Self.path(context.codingPath)): \(context.debugDescription)"
            @unknown default:
                problem = "\(decoding)"
            }
        } else {
            problem = "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "(the result)" : keys.map(\.stringValue).joined(separator: ".")
    }

    /// The method, the member, and the likely cause.
    public var description: String {
        "the daemon's answer to \(method) is not what this client reads (\(problem)); a newer or older pizzad?"
    }
}
