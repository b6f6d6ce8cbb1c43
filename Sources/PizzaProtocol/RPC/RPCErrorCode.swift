/// The error codes of CONTRACT section 4.
public enum RPCErrorCode: Int, Sendable, CaseIterable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case notFound = 1001
    case invalidTransition = 1002
    case conflict = 1003
    case validation = 1004
    case permissionDenied = 1005
    case storage = 1006
    case overloaded = 1007
    case unsupportedVersion = 1008

    /// The name users see (`not_found`, …).
    public var name: String {
        switch self {
        case .parseError: "parse_error"
        case .invalidRequest: "invalid_request"
        case .methodNotFound: "method_not_found"
        case .invalidParams: "invalid_params"
        case .internalError: "internal_error"
        case .notFound: "not_found"
        case .invalidTransition: "invalid_transition"
        case .conflict: "conflict"
        case .validation: "validation"
        case .permissionDenied: "permission_denied"
        case .storage: "storage"
        case .overloaded: "overloaded"
        case .unsupportedVersion: "unsupported_version"
        }
    }
}
