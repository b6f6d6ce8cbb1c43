#if canImport(Glibc)
    import Glibc
#endif

/// Who may read and who may change (CONTRACT section 9): `access.operators` and `access.readers` list user names
/// and `@groups`; root and the daemon's own user are always operators.
public struct AccessPolicy: Sendable {
    /// Who may change orders (`access.operators`): user names and `@groups`.
    public var operators: [String]
    /// Who may only read (`access.readers`).
    public var readers: [String]
    /// The uid the daemon runs as.
    public var daemonUID: UInt32

    /// The policy for these lists; root and `daemonUID` may always.
    public init(operators: [String], readers: [String], daemonUID: UInt32) {
        self.operators = operators
        self.readers = readers
        self.daemonUID = daemonUID
    }

    /// The role of `peer`.
    public func role(of peer: Peer) -> Role {
        if peer.uid == 0 || peer.uid == daemonUID || Self.matches(peer, operators) { return .operator }
        if Self.matches(peer, readers) { return .reader }
        return .none
    }

    private static func matches(_ peer: Peer, _ names: [String]) -> Bool {
        names.contains { name in
            name.hasPrefix("@") ? peer.groups.contains(String(name.dropFirst())) : name == peer.userName
        }
    }
}
