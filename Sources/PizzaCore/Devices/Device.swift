/// A device of the order API as `pizzactl device list` shows it: never its token, which is kept only as a hash.
public struct Device: Sendable, Equatable {
    /// Its unique name: `till-1`, `kitchen`, `ubereats`.
    public var name: String
    /// What it may do.
    public var role: DeviceRole
    /// Whether it authenticates by signing its requests (Standard Webhooks) instead of a bearer token.
    public var signs: Bool
    /// When it was added.
    public var createdAt: Timestamp
    /// When it was revoked; a revoked device is refused from then on.
    public var revokedAt: Timestamp?
    /// When it last made a request that authenticated, and from where (`192.0.2.7:53122`).
    public var lastSeenAt: Timestamp?
    /// Where its last request came from.
    public var lastAddress: String?

    /// A device as `device list` shows it.
    public init(
        name: String, role: DeviceRole, signs: Bool, createdAt: Timestamp, revokedAt: Timestamp? = nil,
        lastSeenAt: Timestamp? = nil, lastAddress: String? = nil
    ) {
        self.name = name
        self.role = role
        self.signs = signs
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastSeenAt = lastSeenAt
        self.lastAddress = lastAddress
    }

    /// Whether `name` may name a device: 1 to 64 of lowercase letters, digits, `-`, `_` and `.`, starting with a
    /// letter or digit.
    public static func isName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64 else { return false }
        let allowed: (UInt8) -> Bool = { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        return allowed(first) && name.utf8.allSatisfy { allowed($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }
}
