/// A request signed the Standard Webhooks way (a platform that signs its pushes): `webhook-id`,
/// `webhook-timestamp` (seconds since 1970) and `webhook-signature` (`v1,` and base64 of HMAC-SHA256 over
/// `id.timestamp.body`, one or more, space-separated, while a secret rotates).
package struct RequestSignature: Sendable {
    package var id: String
    package var timestamp: String
    package var signatures: [String]
    package var body: [UInt8]

    /// The signature a request's `webhook-id`, `webhook-timestamp`, `webhook-signature` (split on spaces) and
    /// `body` make.
    package init(id: String, timestamp: String, signatures: [String], body: [UInt8]) {
        self.id = id
        self.timestamp = timestamp
        self.signatures = signatures
        self.body = body
    }

    /// How far the timestamp may be from now, either way: the standard's five minutes.
    package static let tolerance: Int64 = 300

    /// Whether the timestamp is within ``tolerance`` of `now` (seconds since 1970). The timestamp is the sender's
    /// text: any whole number fits in it (`Int64.min` included), so the distance is taken with overflow reported
    /// and its magnitude compared, never `abs` of a difference that may not fit (which traps).
    package func isFresh(now: Int64) -> Bool {
        guard let seconds = Int64(timestamp) else { return false }
        let (distance, overflow) = now.subtractingReportingOverflow(seconds)
        return !overflow && distance.magnitude <= Self.tolerance.magnitude
    }
}

/// Whether `a` and `b` are the same bytes, in a time that depends on their length only: a token's or a signature's
/// comparison tells a guesser nothing of how much of it was right.
package func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}
