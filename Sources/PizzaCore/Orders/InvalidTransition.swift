/// A transition the status machine does not allow from the order's status.
public struct InvalidTransition: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where the order is.
    public let from: OrderStatus
    /// What was asked.
    public let transition: Transition

    /// The transitions that are allowed from `from`.
    public var allowed: [Transition] {
        Transition.allCases.filter { if case .success = from.applying($0) { true } else { false } }
    }

    public var description: String {
        let allowedText =
            allowed.isEmpty ? "none (the order is finished)" : allowed.map(\.rawValue).joined(separator: ", ")
        return "cannot \(transition.rawValue) an order that is \(from.rawValue); allowed: \(allowedText)"
    }
}
