public import PizzaStorage

/// A batch ready to send: the sound entries read after a position, checked and encoded off the kitchen's threads.
public struct ShippingBatch: Sendable {
    public var first: Int64 = 0
    public var last: (seq: Int64, hash: String)?
    public var count = 0
    /// The JSON array `pizzad_ingest` reads.
    public var text = ""

    /// Keeps the entries before the first altered one; throws when that is the first of all.
    public init(_ read: [AuditEntry]) throws {
        var entries = read
        if let bad = Self.firstAltered(entries) {
            guard bad.index > 0 else { throw ReplicationError.tampered(seq: entries[0].seq, detail: bad.problem) }
            entries.removeSubrange(bad.index...)  // ship what is sound; the next round stops at the bad one
        }
        guard let final = entries.last else { return }
        first = entries[0].seq
        last = (final.seq, final.hash)
        count = entries.count
        text = Self.encode(entries)
    }

    /// The first entry of `entries` that does not match its own hash or does not link to the one before it.
    /// The centre checks the link to what it holds; this catches an entry edited in the shop's file.
    static func firstAltered(_ entries: [AuditEntry]) -> (index: Int, problem: String)? {
        for (index, entry) in entries.enumerated() {
            if entry.computedHash != entry.hash { return (index, "was changed after it was written") }
            if index > 0, entry.prevHash != entries[index - 1].hash {
                return (index, "does not link to entry \(entries[index - 1].seq)")
            }
        }
        return nil
    }
}
