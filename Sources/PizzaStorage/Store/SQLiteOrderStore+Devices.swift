public import PizzaCore
import SQLite

/// Why a device of the order API could not be added or revoked.
public enum DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another device has the name (`conflict`).
    case exists(String)
    /// No device has the name (`not_found`).
    case notFound(String)

    /// The error in a sentence, naming the device.
    public var description: String {
        switch self {
        case .exists(let name):
            "a device named \(name) exists; revoke it first (then add it again) or choose another name"
        case .notFound(let name): "no device named \(name)"
        }
    }
}

/// The order API's answer kept for an `Idempotency-Key`: what the key's first request was, and its answer.
public struct KeptAnswer: Sendable, Equatable {
    /// The SHA-256 of the first request (method, path, body), hex.
    public var request: String
    /// The HTTP status the first answer had.
    public var status: Int
    /// The order as the change left it: its audit entry's `after`, the body answered the first time.
    public var body: String
    /// The order the answer is.
    public var orderID: Int64
    /// When the change was made.
    public var at: String
}

extension SQLiteOrderStore {
    /// Adds a device with its token's SHA-256 (hex) or the secret it signs with; ``DeviceError/exists(_:)`` when the
    /// name is taken, even by a revoked device (its changes in the audit log name it).
    public func addDevice(
        name: String, role: DeviceRole, tokenSHA256: String?, signingSecret: String?, at time: Timestamp = .now()
    ) async throws {
        try await withWriter { db in
            // A revoked device's name may be given again (a lost token is revoked and the device added again): the
            // row is its new self, its old token gone with it; the history keeps naming the device as it was.
            let revoked = try db.statement("SELECT revoked_at IS NOT NULL FROM api_devices WHERE name = ?").first([
                name
            ]) { $0.int64(0) }
            switch revoked {
            case nil:
                try db.execute(
                    literal: """
                        INSERT INTO api_devices (name, role, token_sha256, signing_secret, created_at)
                        VALUES (?, ?, ?, ?, ?)
                        """, [name, role.rawValue, tokenSHA256, signingSecret, time.description])
            case 1?:
                try db.execute(
                    literal: """
                        UPDATE api_devices SET role = ?, token_sha256 = ?, signing_secret = ?, created_at = ?,
                            revoked_at = NULL, last_seen_at = NULL, last_address = NULL
                        WHERE name = ?
                        """, [role.rawValue, tokenSHA256, signingSecret, time.description, name])
            default: throw DeviceError.exists(name)
            }
        }
    }

    /// Marks a device revoked; ``DeviceError/notFound(_:)`` when there is none. Revoking twice keeps the first time.
    public func revokeDevice(name: String, at time: Timestamp = .now()) async throws {
        try await withWriter { db in
            let found = try db.statement("SELECT count(*) FROM api_devices WHERE name = ?").first([name]) {
                $0.int64(0)
            }
            guard found == 1 else { throw DeviceError.notFound(name) }
            try db.execute(
                literal: "UPDATE api_devices SET revoked_at = coalesce(revoked_at, ?) WHERE name = ?",
                [time.description, name])
        }
    }

    /// Every device, revoked ones too, by name.
    public func devices() throws -> [Device] {
        try read { db in
            try db.statement(
                literal: """
                    SELECT name, role, signing_secret IS NOT NULL, created_at, revoked_at, last_seen_at, last_address
                    FROM api_devices ORDER BY name
                    """
            ).map { row in
                Device(
                    name: row.string(0), role: DeviceRole(rawValue: row.string(1)) ?? .reader, signs: row.bool(2),
                    createdAt: Timestamp(iso8601: row.string(3)) ?? Timestamp(millisecondsSince1970: 0),
                    revokedAt: row.optionalString(4).flatMap(Timestamp.init(iso8601:)),
                    lastSeenAt: row.optionalString(5).flatMap(Timestamp.init(iso8601:)),
                    lastAddress: row.optionalString(6))
            }
        }
    }

    /// The credentials of the devices that are not revoked: what the order API checks requests against.
    public func deviceCredentials() throws -> [DeviceCredential] {
        try read { db in
            try db.statement(
                literal: """
                    SELECT name, role, token_sha256, signing_secret FROM api_devices WHERE revoked_at IS NULL
                    """
            ).map { row in
                DeviceCredential(
                    name: row.string(0), role: DeviceRole(rawValue: row.string(1)) ?? .reader,
                    tokenSHA256: row.optionalString(2), signingSecret: row.optionalString(3))
            }
        }
    }

    /// Records when each device was last seen and from where, in one write (the API gathers them, then flushes).
    public func recordSeen(_ seen: [(device: String, at: Timestamp, address: String)]) async throws {
        guard !seen.isEmpty else { return }
        try await withWriter { db in
            try db.transaction {
                for entry in seen {
                    try db.execute(
                        literal: "UPDATE api_devices SET last_seen_at = ?, last_address = ? WHERE name = ?",
                        [entry.at.description, entry.address, entry.device])
                }
            }
        }
    }

    /// The answer kept for `key` of `device`, if the key was used within its keeping time.
    public func keptAnswer(device: String, key: String) throws -> KeptAnswer? {
        try read { db in
            try db.statement(
                literal: """
                    SELECT r.request, r.status, a.after, a.order_id, r.created_at
                    FROM api_requests r JOIN audit_log a ON a.seq = r.seq
                    WHERE r.device = ? AND r.key = ?
                    """
            ).first([device, key]) { row in
                KeptAnswer(
                    request: row.string(0), status: row.int(1), body: row.string(2), orderID: row.int64(3),
                    at: row.string(4))
            }
        }
    }

    /// The devices whose keyed requests created the order `id` (a platform may read only the orders it created).
    public func creator(ofOrder id: Int64) throws -> String? {
        try read { db in
            try db.statement(
                literal: "SELECT actor_device FROM audit_log WHERE order_id = ? AND action = 'created' LIMIT 1"
            ).first([id]) { $0.optionalString(0) } ?? nil
        }
    }
}

extension SQLiteOrderStore {
    /// Which of the orders `ids` were created by `device` (a platform lists only its own).
    public func orders(createdBy device: String, among ids: [Int64]) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return try read { db in
            Set(
                try db.statement(
                    literal: """
                        SELECT order_id FROM audit_log
                        WHERE action = 'created' AND actor_device = ? AND order_id IN (SELECT value FROM json_each(?))
                        """
                ).map([device, list]) { $0.int64(0) })
        }
    }
}

extension SQLiteOrderStore {
    /// Every `Idempotency-Key` kept, by device, with when it was used: what the order API holds in memory so that a
    /// new key costs no read.
    public func requestKeys() throws -> [(device: String, key: String, at: String)] {
        try read { db in
            try db.statement(literal: "SELECT device, key, created_at FROM api_requests").map {
                (device: $0.string(0), key: $0.string(1), at: $0.string(2))
            }
        }
    }
}

extension DeviceError: DomainFailure {
    /// A name taken is a conflict; a name unknown, not found.
    public var kind: FailureKind {
        switch self {
        case .exists: .conflict
        case .notFound: .notFound
        }
    }

    /// None: the sentence names the device.
    public var details: FailureDetails { .none }
}
