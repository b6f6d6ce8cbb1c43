import Crypto
import Foundation

/// Standard Webhooks' signature (CONTRACT section 16): `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, one
/// per secret, space-separated, so a receiver that knows either of two secrets (one rotating in) accepts it.
enum WebhookSignature {
    /// The `webhook-signature` header for `body` sent as `id` at `timestamp` (seconds since 1970).
    static func header(id: String, timestamp: Int64, body: [UInt8], secrets: [[UInt8]]) -> String {
        var signed = Array("\(id).\(timestamp).".utf8)
        signed += body
        return secrets.map { secret in
            let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: secret))
            return "v1," + Data(code).base64EncodedString()
        }.joined(separator: " ")
    }

    /// The key bytes of a `whsec_…` secret (base64 after the prefix), or nil when it is not one.
    static func key(fromSecret line: String) -> [UInt8]? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("whsec_"), let data = Data(base64Encoded: String(trimmed.dropFirst(6))),
            data.count >= 24
        else { return nil }
        return Array(data)
    }
}
