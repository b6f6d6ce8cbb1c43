import PizzaStorage

extension Replicator {
    /// The verdict of `pizzactl replication verify`.
    public struct Verification: Sendable {
        /// Whether the centre holds this shop's history up to its cursor, with the same hash there.
        public var ok: Bool
        /// The centre's cursor for this shop; nil when it does not know the shop.
        public var centralSeq: Int64?
        /// The hash the centre holds at its cursor.
        public var centralHash: String?
        /// This shop's hash at the same sequence number.
        public var localHash: String?
        /// How many of this shop's entries the centre holds.
        public var centralEvents: Int64?
        /// How many of this shop's orders the centre holds.
        public var centralOrders: Int64?
        /// The shipped mark recorded here.
        public var shippedSeq: Int64
        /// What does not verify, in a sentence; nil when it does.
        public var problem: String?
    }

    /// Compares this shop's audit chain with the centre's at the centre's cursor: same hash there, and every entry
    /// up to it stored centrally.
    public func verify() async throws -> Verification {
        let mark = try store.replicationMark()
        let central = try await client.connect()
        let cursor: CentralCursor
        do {
            cursor = try await central.cursor(shop: configuration.shopID, key: mark.shopKey)
            await central.close()
        } catch {
            await central.close()
            throw error
        }
        var result = Verification(
            ok: false, centralSeq: cursor.cursor, centralHash: cursor.hash, localHash: nil,
            centralEvents: cursor.events,
            centralOrders: cursor.orders, shippedSeq: mark.shippedSeq, problem: nil)
        guard let seq = cursor.cursor else {
            result.ok = mark.shippedSeq == 0
            result.problem = result.ok ? nil : "the centre does not know shop \(configuration.shopID)"
            return result
        }
        if seq == 0 {
            result.ok = true
            return result
        }
        result.localHash = try store.auditHash(seq: seq)
        if result.localHash == nil {
            let latest = try store.replicationBacklog(after: 0).latestSeq
            result.problem =
                "the histories diverged: the centre holds entries up to \(seq), beyond this shop's audit log (which ends at "
                + "\(latest)); was this database restored from an older copy?"
        } else if result.localHash != cursor.hash {
            result.problem = "entry \(seq) has another hash centrally: the histories diverged"
        } else if cursor.events != seq {
            result.problem = "the centre holds \(cursor.events ?? 0) of this shop's first \(seq) entries"
        } else {
            result.ok = true
        }
        return result
    }
}
