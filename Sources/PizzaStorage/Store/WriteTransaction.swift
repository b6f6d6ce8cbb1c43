import PizzaCore
import SQLite

/// The ``OrderTransaction`` a write body gets: reads through the writer connection, inside its transaction.
struct WriteTransaction: OrderTransaction {
    let db: Database

    func cart(id: Int64) throws -> Cart? { try db.loadCart(id: id) }
    func cart(ref: String) throws -> Cart? { try db.loadCart(ref: ref) }

    func nextCartID() throws -> Int64 { try nextID("SELECT coalesce(max(id), 0) + 1 FROM carts") }
    func nextItemID() throws -> Int64 { try nextID("SELECT coalesce(max(id), 0) + 1 FROM pizzas") }
    func nextSequence() throws -> Int64 { try nextID("SELECT coalesce(max(seq), 0) + 1 FROM audit_log") }

    private func nextID(_ sql: String) throws -> Int64 {
        try db.statement(sql).first { $0.int64(0) } ?? 1
    }
}
