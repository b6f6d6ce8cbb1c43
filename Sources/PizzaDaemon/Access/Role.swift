#if canImport(Glibc)
    import Glibc
#endif

/// What a connection may do.
public enum Role: Int, Sendable, Comparable, CustomStringConvertible {
    /// Nothing but `daemon.hello`.
    case none
    /// Read orders, menu, audit, metrics; watch events.
    case reader
    /// Everything a reader may, and change orders and take backups.
    case `operator`

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .none: "nobody"
        case .reader: "reader"
        case .operator: "operator"
        }
    }
}
