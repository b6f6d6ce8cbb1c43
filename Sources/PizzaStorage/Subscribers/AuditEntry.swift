import Crypto
import Foundation
public import PizzaCore

/// One row of `audit_log`.
public struct AuditEntry: Sendable, Equatable, Codable {
    /// Its sequence number: gapless, increasing.
    public var seq: Int64
    /// When, as ISO-8601 text (hashed as written).
    public var at: String
    /// Who made the change.
    public var actor: ChangeActor
    /// `created`, `item_added`, `item_removed`, `placed`, `advanced` or `cancelled`.
    public var action: String
    /// The order changed.
    public var orderID: Int64
    /// The order's status after the change.
    public var statusAfter: String
    /// A cancellation's reason.
    public var reason: String?
    /// The order before the change, as JSON; nil for a creation.
    public var before: String?
    /// The order after the change, as JSON.
    public var after: String
    /// The previous entry's hash (``AuditLogger/genesis`` for the first).
    public var prevHash: String
    /// SHA-256 over every other field, the previous hash included (``computedHash``), hex.
    public var hash: String

    /// An entry from its fields.
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
    /// U+0000, hex. The actor's device and address (a change over the order API) follow the previous hash, and only
    /// when either is there, so an entry from before they were (every entry made over the control socket) hashes as
    /// it always did. The fields are written into one buffer (numbers as their decimal digits, straight in) and
    /// hashed in one go: fed one by one, each of the 23 pieces was a call through swift-crypto's copy-on-write
    /// digest and BoringSSL's update.
    public var computedHash: String {
        // Four numbers of at most 20 characters, eleven separators, the texts (a missing one is one byte).
        let capacity =
            4 * 20 + 11 + 2 + at.utf8.count + actor.name.utf8.count + action.utf8.count + statusAfter.utf8.count
            + (reason?.utf8.count ?? 0) + (before?.utf8.count ?? 0) + after.utf8.count + prevHash.utf8.count
            + 4 + (actor.device?.utf8.count ?? 0) + (actor.address?.utf8.count ?? 0)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var count = 0
            func separate() {
                if count > 0 {
                    buffer[count] = Self.unitSeparator
                    count += 1
                }
            }
            func append(_ field: String) {
                separate()
                var field = field
                field.withUTF8 { bytes in
                    guard let base = bytes.baseAddress else { return }
                    (buffer.baseAddress! + count).initialize(from: base, count: bytes.count)
                    count += bytes.count
                }
            }
            func append(_ number: Int64) {
                separate()
                if number < 0 {
                    buffer[count] = UInt8(ascii: "-")
                    count += 1
                }
                var magnitude = number.magnitude
                var digits = 0
                repeat {
                    digits += 1
                    magnitude /= 10
                } while magnitude > 0
                magnitude = number.magnitude
                for index in stride(from: count + digits - 1, through: count, by: -1) {
                    buffer[index] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                    magnitude /= 10
                }
                count += digits
            }
            append(seq)
            append(at)
            append(Int64(actor.uid))
            append(actor.name)
            append(Int64(actor.pid))
            append(action)
            append(orderID)
            append(statusAfter)
            append(reason ?? "\u{0}")
            append(before ?? "\u{0}")
            append(after)
            append(prevHash)
            if actor.device != nil || actor.address != nil {
                append(actor.device ?? "\u{0}")
                append(actor.address ?? "\u{0}")
            }
            var hasher = SHA256()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
            return hasher.finalize().withUnsafeBytes { Hex.string($0) }
        }
    }

    private static let unitSeparator: UInt8 = 0x1F
}
