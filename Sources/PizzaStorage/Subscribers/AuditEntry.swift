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
    /// U+0000, hex. The fields are fed to the hash one by one, without joining them into one text first.
    public var computedHash: String {
        var sha = SHA256()
        var first = true
        func feed(_ field: String) {
            if !first { sha.update(data: Self.unitSeparator) }
            first = false
            var field = field
            field.withUTF8 { sha.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        feed(String(seq))
        feed(at)
        feed(String(actor.uid))
        feed(actor.name)
        feed(String(actor.pid))
        feed(action)
        feed(String(orderID))
        feed(statusAfter)
        feed(reason ?? "\u{0}")
        feed(before ?? "\u{0}")
        feed(after)
        feed(prevHash)
        return sha.finalize().withUnsafeBytes { Hex.string($0) }
    }

    private static let unitSeparator: [UInt8] = [0x1F]
}
