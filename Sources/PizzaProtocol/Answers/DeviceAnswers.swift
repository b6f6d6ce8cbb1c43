public import PizzaCore

/// A device of the order API as `device.list` and `device.revoke` answer it.
public struct DeviceAnswer: Answer, Equatable {
    /// Its name.
    public var name: String
    /// What it may do.
    public var role: DeviceRole
    /// Whether it authenticates by signing (a platform's webhook) rather than by token.
    public var signs: Bool
    /// When it was added (ISO-8601).
    public var createdAt: String
    /// When it was revoked.
    public var revokedAt: String?
    /// When it was last seen.
    public var lastSeenAt: String?
    /// Where from.
    public var lastAddress: String?

    /// A device.
    public init(
        name: String, role: DeviceRole, signs: Bool, createdAt: String, revokedAt: String?, lastSeenAt: String?,
        lastAddress: String?
    ) {
        self.name = name
        self.role = role
        self.signs = signs
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastSeenAt = lastSeenAt
        self.lastAddress = lastAddress
    }
}

/// `device.add`: the device, with its token shown this once (nil for a signing device).
public struct DeviceAddAnswer: Answer, Equatable {
    /// Its name.
    public var name: String
    /// What it may do.
    public var role: DeviceRole
    /// The bearer token, shown once; the database keeps only its hash.
    public var token: String?
    /// The API certificate's SHA-256 fingerprint, for pinning on the device.
    public var fingerprint: String?

    /// An answer.
    public init(name: String, role: DeviceRole, token: String?, fingerprint: String?) {
        self.name = name
        self.role = role
        self.token = token
        self.fingerprint = fingerprint
    }
}

/// `device.list`.
public struct DeviceListAnswer: Answer, Equatable {
    /// Every device, revoked ones included.
    public var devices: [DeviceAnswer]

    /// An answer.
    public init(devices: [DeviceAnswer]) { self.devices = devices }
}
