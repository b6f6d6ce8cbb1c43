/// What kind of failure an error is, in the contract's names (CONTRACT section 4's application errors): the control
/// socket maps each to its code once (`RPCError`), the order API to its HTTP status once (`Problem`).
public enum FailureKind: String, Sendable, CaseIterable {
    /// No such order, item, device.
    case notFound = "not_found"
    /// The order's status does not allow it.
    case invalidTransition = "invalid_transition"
    /// The order moved on, or the name is taken.
    case conflict
    /// A value that is not allowed; the details name the field.
    case validation
    /// The caller may not.
    case permissionDenied = "permission_denied"
    /// The disk or the database refused: nothing was written.
    case storage
    /// Too much at once.
    case overloaded
    /// A fault of pizzad's own.
    case `internal`
}

/// An error the domain or its storage names: its kind, its sentence, and what a client can act on. Each of
/// pizzad's errors says this once; the edges translate it.
public protocol DomainFailure: Error, CustomStringConvertible {
    /// Its kind.
    var kind: FailureKind { get }
    /// What a client can act on.
    var details: FailureDetails { get }
    /// The failure in a sentence, as a client is told it (its ``description`` unless the error says otherwise).
    var explanation: String { get }
}

extension DomainFailure {
    /// The error's ``description``.
    public var explanation: String { description }
}

/// The details of a failure, in the order a client reads them.
public struct FailureDetails: Sendable, Equatable {
    /// The parameter at fault.
    public var field: String?
    /// The order's status.
    public var status: String?
    /// The status the caller expected (a conflict).
    public var expected: String?
    /// What would have been allowed.
    public var allowed: [String]?
    /// The menu item at fault (one taken off the menu).
    public var item: String?
    /// Why, in a word a client can switch on (`unavailable`).
    public var reason: String?

    /// Details.
    public init(
        field: String? = nil, status: String? = nil, expected: String? = nil, allowed: [String]? = nil,
        item: String? = nil, reason: String? = nil
    ) {
        self.field = field
        self.status = status
        self.expected = expected
        self.allowed = allowed
        self.item = item
        self.reason = reason
    }

    /// None.
    public static let none = FailureDetails()
}

extension OrderError: DomainFailure {
    /// Not found, an invalid transition, a conflict or a validation.
    public var kind: FailureKind {
        switch self {
        case .notFound, .itemNotFound: .notFound
        case .invalidTransition, .notOpen, .emptyCart, .tooLate: .invalidTransition
        case .conflict, .refConflict: .conflict
        case .validation: .validation
        }
    }

    /// The order's status and what it allows, or the field at fault.
    public var details: FailureDetails {
        switch self {
        case .notFound, .itemNotFound: .none
        case .invalidTransition(_, let invalid):
            FailureDetails(status: invalid.from.rawValue, allowed: invalid.allowed.map(\.rawValue))
        case .notOpen(_, let status), .tooLate(_, let status, _): FailureDetails(status: status.rawValue)
        case .refConflict: FailureDetails(field: "ref")
        case .emptyCart: FailureDetails(field: "items")
        case .conflict(_, let expected, let actual):
            FailureDetails(status: actual.rawValue, expected: expected.rawValue)
        case .validation(let field, let allowed, _): FailureDetails(field: field, allowed: allowed)
        }
    }
}

extension PizzaError: DomainFailure {
    /// Always `validation`: a pizza the menu cannot make.
    public var kind: FailureKind { .validation }
    /// The field and what the menu allows there.
    public var details: FailureDetails { FailureDetails(field: field, allowed: allowed) }
}
