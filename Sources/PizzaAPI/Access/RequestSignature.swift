import Crypto
import Foundation

/// A request signed the Standard Webhooks way (a platform that signs its pushes): `webhook-id`,
/// `webhook-timestamp` (seconds since 1970) and `webhook-signature` (`v1,` and base64 of HMAC-SHA256 over
/// `id.timestamp.body`, one or more, space-separated, while a secret rotates).
struct RequestSignature: Sendable {
    var id: String
    var timestamp: String
    var signatures: [String]
    var body: [UInt8]

    /// How far the timestamp may be from now, either way: the standard's five minutes.
    static let tolerance: Int64 = 300

    /// Whether the timestamp is within ``tolerance`` of `now` (seconds since 1970). The timestamp is the sender's
    /// text: any whole number fits in it (`Int64.min` included), so the distance is taken with overflow reported
    /// and its magnitude compared, never `abs` of a difference that may not fit (which traps).
    func isFresh(now: Int64) -> Bool {
        guard let seconds = Int64(timestamp) else { return false }
        let (distance, overflow) = now.subtractingReportingOverflow(seconds)
        return !overflow && distance.magnitude <= Self.tolerance.magnitude
    }

    /// Whether one of the signatures is the HMAC of `secret` (`whsec_` and base64), compared in constant time.
    func isSigned(with secret: String) -> Bool {
        guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))) else {
            return false
        }
        var message = Array("\(id).\(timestamp).".utf8)
        message.append(contentsOf: body)
        let expected = Array(
            Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))).base64EncodedString()
                .utf8)
        var matched = false
        for signature in signatures where signature.hasPrefix("v1,") {
            if DeviceDirectory.constantTimeEqual(Array(signature.utf8.dropFirst(3)), expected) { matched = true }
        }
        return matched
    }
}
