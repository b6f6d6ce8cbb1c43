import Crypto
import Foundation
import PizzaCore

/// The `Idempotency-Key`s whose first request is still running: a second request with one of them is answered 409
/// `idempotency_key_in_use` instead of waiting or running twice (the IETF draft's "concurrent request").
final class InFlightKeys: Sendable {
    private let keys = Locked<Set<String>>([])

    /// Claims `key` of `device`; false when a request with it is under way.
    func claim(device: String, key: String) -> Bool {
        keys.withLock { $0.insert(device + "\u{0}" + key).inserted }
    }

    func release(device: String, key: String) {
        _ = keys.withLock { $0.remove(device + "\u{0}" + key) }
    }

    /// An `Idempotency-Key` header's value, checked: 1 to 255 visible ASCII characters.
    static func checked(_ key: String) throws(Problem) -> String {
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(
                .badRequest, "validation", "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID, say)")
        }
        return key
    }

    /// The request a key was first used with: SHA-256 over its method, path and body, hex.
    static func fingerprint(method: String, path: String, body: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(data: Data("\(method) \(path)\n".utf8))
        hasher.update(data: body)
        return hasher.finalize().withUnsafeBytes { Hex.string($0) }
    }
}
