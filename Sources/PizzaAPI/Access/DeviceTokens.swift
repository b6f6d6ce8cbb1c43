import Crypto
import Foundation
import NIOSSL
import PizzaCore

/// Device tokens and the API certificate's fingerprint, as `pizzactl device add` hands them out.
public enum DeviceTokens {
    /// A new token: `pzd_` and 32 random bytes in base64url (256 bits, from the system's generator).
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let base64 = Data(bytes).base64EncodedString()
        return "pzd_" + String(base64.compactMap { $0 == "=" ? nil : $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// The SHA-256 of a token, hex: all the database keeps of it.
    public static func sha256(of token: String) -> String {
        String(decoding: sha256Hex(of: token), as: UTF8.self)
    }

    /// The same hash as its hex digits' bytes: what every request's token is compared as, without a string.
    static func sha256Hex(of token: String) -> [UInt8] {
        var hasher = SHA256()
        var token = token
        token.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        var hex: [UInt8] = []
        hex.reserveCapacity(2 * SHA256.byteCount)
        hasher.finalize().withUnsafeBytes { digest in
            for byte in digest { Hex.append(byte, to: &hex) }
        }
        return hex
    }

    /// The SHA-256 of the certificate's DER as `openssl x509 -fingerprint -sha256` prints it (`AB:CD:…`), for a till
    /// to pin; nil when the file holds no certificate.
    public static func fingerprint(ofCertificateFile path: String) -> String? {
        guard let certificate = try? NIOSSLCertificate.fromPEMFile(path).first,
            let der = try? certificate.toDERBytes()
        else { return nil }
        return SHA256.hash(data: Data(der)).map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// Whether `secret` is a Standard Webhooks secret: `whsec_` and base64 of 24 to 64 bytes.
    public static func isSigningSecret(_ secret: String) -> Bool {
        guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))) else {
            return false
        }
        return (24...64).contains(key.count)
    }
}
