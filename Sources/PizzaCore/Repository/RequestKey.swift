/// An order API request's `Idempotency-Key`, carried with the change it asks for so that the answer is kept in the
/// same transaction as the change (a crash can lose neither without the other).
public struct RequestKey: Sendable, Hashable {
    /// The device that sent it; keys are per device.
    public var device: String
    /// The `Idempotency-Key` header.
    public var key: String
    /// The SHA-256 of the request (method, path and body), hex: the same key with another request is refused.
    public var request: String
    /// The HTTP status the change answers with (201 for a new order, 200 for any other change).
    public var status: Int

    /// `device`'s key `key` for the request whose SHA-256 is `request`, answered with `status`.
    public init(device: String, key: String, request: String, status: Int) {
        self.device = device
        self.key = key
        self.request = request
        self.status = status
    }
}
