public import PizzaCore
import SQLite

extension SQLiteOrderStore {
    /// The statuses a kitchen board shows, in its columns' order.
    public static let boardStatuses: [OrderStatus] = OrderStatus.onBoard

    /// The orders on the kitchen's board (placed to shipped, oldest first, at most `limit` a status) and the
    /// newest sequence number they reflect, read in one read transaction: a stream that starts after that number
    /// misses no change and repeats none.
    public func boardSnapshot(limit: Int = 500) throws -> (seq: Int64, orders: [Cart]) {
        // A read runs in one read transaction of its own (ReaderPool): one snapshot of the database.
        try read { db in
            let seq = try db.statement("SELECT coalesce(max(seq), 0) FROM audit_log").first { $0.int64(0) } ?? 0
            var orders: [Cart] = []
            for status in Self.boardStatuses {
                orders += try db.listCarts(OrderQuery(status: status, limit: limit)).orders.reversed()
            }
            return (seq, orders)
        }
    }
}
