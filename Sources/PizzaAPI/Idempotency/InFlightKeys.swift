import Crypto
import PizzaCore
import PizzaHTTPEdges

/// The `Idempotency-Key`s whose first request is still running: a second request with one of them is answered 409
/// `idempotency_key_in_use` instead of waiting or running twice (the IETF draft's "concurrent request").
final class InFlightKeys: Sendable {
    private let keys = Locked<Set<DeviceKey>>([])

    /// Claims `key` of `device`; false when a request with it is under way.
    func claim(device: String, key: String) -> Bool {
        keys.withLock { $0.insert(DeviceKey(device: device, key: key)).inserted }
    }

    func release(device: String, key: String) {
        _ = keys.withLock { $0.remove(DeviceKey(device: device, key: key)) }
    }

    /// The request a key was first used with: SHA-256 over its method, path and body, hex.
    static func fingerprint(method: String, path: String, body: [UInt8]) -> String {
        var hasher = SHA256()
        // `METHOD PATH\n` then the body, fed as they are, no string made of them.
        func feed(_ text: String) {
            var text = text
            text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        feed(method)
        feed(" ")
        feed(path)
        feed("\n")
        body.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize().withUnsafeBytes { Hex.string($0) }
    }
}

/// A device's `Idempotency-Key`: keys are per device.
struct DeviceKey: Hashable, Sendable {
    var device: String
    var key: String
}
