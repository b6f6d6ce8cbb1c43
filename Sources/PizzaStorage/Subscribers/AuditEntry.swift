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
    /// What happened: an order's change (``OrderChange/Kind``'s raw value), or one that belongs to no order
    /// (`availability_changed`, `z_report`: ``ShopEntry/Kind``).
    public var action: String
    /// The order changed; nil for an entry that belongs to no order.
    public var orderID: Int64?
    /// The order's status after the change; nil for an entry that belongs to no order.
    public var statusAfter: String?
    /// A cancellation's reason.
    public var reason: String?
    /// The order before the change, as JSON; nil for a creation (and for an entry that belongs to no order).
    public var before: String?
    /// The order after the change, as JSON; for an entry that belongs to no order, what it records (an item's
    /// availability, a Z report's figures).
    public var after: String
    /// The previous entry's hash (``AuditLogger/genesis`` for the first).
    public var prevHash: String
    /// SHA-256 over every other field, the previous hash included (``computedHash``), hex.
    public var hash: String

    /// An entry from its fields.
    public init(
        seq: Int64, at: String, actor: ChangeActor, action: String, orderID: Int64?, statusAfter: String?,
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

    /// SHA-256 over every field but `hash`, in a fixed order with unit separators (U+001F), a missing field (a
    /// reason, a before, an entry's order and status when it belongs to no order) as U+0000, hex. The actor's device and address (a change over the order API) follow the previous hash, and only
    /// when either is there, so an entry from before they were (every entry made over the control socket) hashes as
    /// it always did. The fields are written into one buffer (numbers as their decimal digits, straight in) and
    /// hashed in one go: fed one by one, each of the 23 pieces was a call through swift-crypto's copy-on-write
    /// digest and BoringSSL's update.
    public var computedHash: String {
        // Four numbers of at most 20 characters, eleven separators, the texts (a missing one is one byte).
        let capacity =
            4 * 20 + 11 + 2 + at.utf8.count + actor.name.utf8.count + action.utf8.count + (statusAfter?.utf8.count ?? 0)
            + (reason?.utf8.count ?? 0) + (before?.utf8.count ?? 0) + after.utf8.count + prevHash.utf8.count
            + 4 + (actor.device?.utf8.count ?? 0) + (actor.address?.utf8.count ?? 0)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var input = HashInput(buffer: buffer)
            input.append(seq)
            input.append(at)
            input.append(Int64(actor.uid))
            input.append(actor.name)
            input.append(Int64(actor.pid))
            input.append(action)
            if let orderID { input.append(orderID) } else { input.append("\u{0}") }
            input.append(statusAfter ?? "\u{0}")
            input.append(reason ?? "\u{0}")
            input.append(before ?? "\u{0}")
            input.append(after)
            input.append(prevHash)
            if actor.device != nil || actor.address != nil {
                input.append(actor.device ?? "\u{0}")
                input.append(actor.address ?? "\u{0}")
            }
            var hasher = SHA256()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: buffer.baseAddress, count: input.count))
            return hasher.finalize().withUnsafeBytes { Hex.string($0) }
        }
    }

    /// What ``computedHash`` hashes, written into one buffer: a struct's own count, where local functions sharing
    /// a captured one checked every access to it at run time.
    private struct HashInput {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func append(_ field: String) {
            separate()
            // A native string's bytes where they are (`withUTF8` needs a `var`: a retain and a release a field).
            if let copied = field.utf8.withContiguousStorageIfAvailable({ copy($0) }) {
                count += copied
                return
            }
            var field = field
            count += field.withUTF8 { copy($0) }
        }

        mutating func append(_ number: Int64) {
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

        private mutating func separate() {
            if count > 0 {
                buffer[count] = AuditEntry.unitSeparator
                count += 1
            }
        }

        /// Copies `bytes` after what is written; returns how many.
        private func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            guard let base = bytes.baseAddress else { return 0 }
            (buffer.baseAddress! + count).initialize(from: base, count: bytes.count)
            return bytes.count
        }
    }

    private static let unitSeparator: UInt8 = 0x1F
}
