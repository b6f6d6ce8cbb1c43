import Crypto
import Foundation
import PizzaHTTPEdges

extension RequestSignature {
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
            if constantTimeEqual(Array(signature.utf8.dropFirst(3)), expected) { matched = true }
        }
        return matched
    }
}
