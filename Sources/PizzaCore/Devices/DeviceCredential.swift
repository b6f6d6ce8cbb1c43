/// What the order API checks a request against: an active device's role and its token's SHA-256 (hex), or the
/// Standard Webhooks secret of a device that signs its pushes.
public struct DeviceCredential: Sendable, Equatable {
    /// The device's name.
    public var name: String
    /// What it may do.
    public var role: DeviceRole
    /// The SHA-256 of its bearer token, hex; nil for a device that signs.
    public var tokenSHA256: String?
    /// The secret it signs with (`whsec_…`); nil for a device with a token.
    public var signingSecret: String?

    /// The credential of `name`: a token's hash or a signing secret, one of the two.
    public init(name: String, role: DeviceRole, tokenSHA256: String?, signingSecret: String?) {
        self.name = name
        self.role = role
        self.tokenSHA256 = tokenSHA256
        self.signingSecret = signingSecret
    }
}
