import Crypto
import Foundation
public import PizzaCore

/// One row of `audit_log`.
public struct AuditEntry: Sendable, Equatable, Codable {
    public var seq: Int64
    public var at: String
    public var actor: ChangeActor
    public var action: String
    public var orderID: Int64
    public var statusAfter: String
    public var reason: String?
    /// The order before the change, as JSON; nil for a creation.
    public var before: String?
    /// The order after the change, as JSON.
    public var after: String
    public var prevHash: String
    public var hash: String

    /// SHA-256 over every field but `hash`, in a fixed order with unit separators, hex.
    public var computedHash: String {
        let fields: [String] = [
            String(seq), at, String(actor.uid), actor.name, String(actor.pid), action, String(orderID), statusAfter,
            reason ?? "\u{0}", before ?? "\u{0}", after, prevHash,
        ]
        let digest = SHA256.hash(data: Data(fields.joined(separator: "\u{1F}").utf8))
        return Hex.string(digest)
    }
}
