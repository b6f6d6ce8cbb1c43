import Crypto
import Foundation
import PizzaCore
import PizzaHTTPEdges
public import PizzaStorage

/// The devices the order API knows, as the database holds them, in memory: every request is checked here, never
/// against a cached "this connection is fine", so a device revoked (``reload()``) is refused from its next request
/// on, open connections included.
///
/// When a device was last seen, and from where, is gathered here and written by ``flushSeen()`` every few seconds,
/// not by every request.
public final class DeviceDirectory: Sendable {
    private let store: SQLiteOrderStore
    /// The active devices, and each token device's stored hash as bytes (made once per reload, not per request).
    private struct Known {
        var credentials: [DeviceCredential] = []
        var tokenHashes: [(credential: DeviceCredential, hash: [UInt8])] = []
    }
    private let known = Locked(Known())
    private let seen = Locked<[String: (at: Timestamp, address: String)]>([:])

    /// The devices of `store`, read at once.
    public init(store: SQLiteOrderStore) throws {
        self.store = store
        try reload()
    }

    /// Reads the devices again: after `device add` and `device revoke`.
    public func reload() throws {
        let fresh = try store.deviceCredentials()
        let hashes = fresh.compactMap { credential in credential.tokenSHA256.map { (credential, Array($0.utf8)) } }
        known.withLock { $0 = Known(credentials: fresh, tokenHashes: hashes) }
    }

    /// The device whose token this is. Every active device's hash is compared, each in constant time, so that how
    /// long the check takes tells nothing of which hash came close.
    func device(bearer token: String) -> DeviceCredential? {
        let hash = DeviceTokens.sha256Hex(of: token)
        var found: DeviceCredential?
        for (credential, stored) in known.withLock({ $0.tokenHashes }) where constantTimeEqual(stored, hash) {
            found = credential
        }
        return found
    }

    /// The signing device whose secret signed `id.timestamp.body` as one of `signatures` says (Standard Webhooks).
    func device(signed signature: RequestSignature) -> DeviceCredential? {
        var found: DeviceCredential?
        for credential in known.withLock({ $0.credentials }) {
            guard let secret = credential.signingSecret, signature.isSigned(with: secret) else { continue }
            found = credential
        }
        return found
    }

    /// Whether `name` is a device that is not revoked.
    func isActive(_ name: String) -> Bool { known.withLock { $0.credentials.contains { $0.name == name } } }

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
}
