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

    public init(
        seq: Int64, at: String, actor: ChangeActor, action: String, orderID: Int64, statusAfter: String,
        reason: String?, before: String?, after: String, prevHash: String, hash: String
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.action = action
        self.orderID = orderID
        self.statusAfter = statusAfter
        self.reason = reason
        self.before = before
        self.after = after
        self.prevHash = prevHash
        self.hash = hash
    }

    /// SHA-256 over every field but `hash`, in a fixed order with unit separators (U+001F), a missing field as
    /// U+0000, hex. The fields are joined into one buffer and hashed in one go: fed one by one, each of the 23
    /// pieces was a call through swift-crypto's copy-on-write digest and BoringSSL's update.
    public var computedHash: String {
        var text: [UInt8] = []
        text.reserveCapacity(after.utf8.count + (before?.utf8.count ?? 0) + (reason?.utf8.count ?? 0) + 192)
        func append(_ field: String) {
            if !text.isEmpty { text.append(Self.unitSeparator) }
            text.append(contentsOf: field.utf8)
        }
        append(String(seq))
        append(at)
        append(String(actor.uid))
        append(actor.name)
        append(String(actor.pid))
        append(action)
        append(String(orderID))
        append(statusAfter)
        append(reason ?? "\u{0}")
        append(before ?? "\u{0}")
        append(after)
        append(prevHash)
        return SHA256.hash(data: text).withUnsafeBytes { Hex.string($0) }
    }

    private static let unitSeparator: UInt8 = 0x1F
}
