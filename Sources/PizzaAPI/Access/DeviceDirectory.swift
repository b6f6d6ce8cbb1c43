import Crypto
import Foundation
import PizzaCore
public import PizzaStorage

/// The devices the order API knows, as the database holds them, in memory: every request is checked here, never
/// against a cached "this connection is fine", so a device revoked (``reload()``) is refused from its next request
/// on, open connections included.
///
/// When a device was last seen, and from where, is gathered here and written by ``flushSeen()`` every few seconds,
/// not by every request.
public final class DeviceDirectory: Sendable {
    private let store: SQLiteOrderStore
    private let credentials = Locked<[DeviceCredential]>([])
    private let seen = Locked<[String: (at: Timestamp, address: String)]>([:])

    /// The devices of `store`, read at once.
    public init(store: SQLiteOrderStore) throws {
        self.store = store
        try reload()
    }

    /// Reads the devices again: after `device add` and `device revoke`.
    public func reload() throws {
        let fresh = try store.deviceCredentials()
        credentials.withLock { $0 = fresh }
    }

    /// The device whose token this is. Every active device's hash is compared, each in constant time, so that how
    /// long the check takes tells nothing of which hash came close.
    func device(bearer token: String) -> DeviceCredential? {
        let hash = Array(DeviceTokens.sha256(of: token).utf8)
        var found: DeviceCredential?
        for credential in credentials.withLock({ $0 }) {
            guard let stored = credential.tokenSHA256 else { continue }
            if Self.constantTimeEqual(Array(stored.utf8), hash) { found = credential }
        }
        return found
    }

    /// The signing device whose secret signed `id.timestamp.body` as one of `signatures` says (Standard Webhooks).
    func device(signed signature: RequestSignature) -> DeviceCredential? {
        var found: DeviceCredential?
        for credential in credentials.withLock({ $0 }) {
            guard let secret = credential.signingSecret, signature.isSigned(with: secret) else { continue }
            found = credential
        }
        return found
    }

    /// Whether `name` is a device that is not revoked.
    func isActive(_ name: String) -> Bool { credentials.withLock { $0.contains { $0.name == name } } }

    /// Notes that `device` was seen from `address` now.
    func saw(_ device: String, from address: String) {
        let now = Timestamp.now()
        seen.withLock { $0[device] = (now, address) }
    }

    /// Writes what was seen since the last flush.
    public func flushSeen() async throws {
        let batch = seen.withLock { seen in
            defer { seen = [:] }
            return seen.map { (device: $0.key, at: $0.value.at, address: $0.value.address) }
        }
        try await store.recordSeen(batch)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
