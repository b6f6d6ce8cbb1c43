/// An order API request's `Idempotency-Key`, carried with the change it asks for so that the answer is kept in the
/// same transaction as the change (a crash can lose neither without the other).
public struct RequestKey: Sendable, Hashable {
    /// The device that sent it; keys are per device.
    public var device: String
    /// The `Idempotency-Key` header.
    public var key: String
    /// The SHA-256 of the request (method, path and body), hex: the same key with another request is refused.
    public var request: String
    /// Whether the change makes an order (its replay answers as a creation) rather than changing one.
    public var creates: Bool

    /// `device`'s key `key` for the request whose SHA-256 is `request`, for a change that `creates` an order or not.
    public init(device: String, key: String, request: String, creates: Bool) {
        self.device = device
        self.key = key
        self.request = request
        self.creates = creates
    }
}
