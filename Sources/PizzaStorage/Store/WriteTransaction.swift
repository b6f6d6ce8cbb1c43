import PizzaCore
import SQLite

/// The ``OrderTransaction`` a write body gets, and the storage's write handle: it reads and writes through the
/// writer connection, inside the open transaction (and the change's savepoint).
struct WriteTransaction: OrderTransaction {
    let db: Database

    init(db: Database) { self.db = db }

    /// The write handle behind a transaction the repository hands on: every write body gets this store's own
    /// (see `SQLiteOrderStore.commit`), so anything else is a programming error.
    init(_ transaction: any OrderTransaction) {
        guard let own = transaction as? WriteTransaction else {
            preconditionFailure(
                "a storage subscriber was handed \(type(of: transaction)), not SQLite's write transaction")
        }
        self = own
    }

    func cart(id: Int64) throws -> Cart? { try db.loadCart(id: id) }
    func cart(ref: String) throws -> Cart? { try db.loadCart(ref: ref) }

    func nextCartID() throws -> Int64 { try nextID("SELECT coalesce(max(id), 0) + 1 FROM carts") }
    func nextItemID() throws -> Int64 { try nextID("SELECT coalesce(max(id), 0) + 1 FROM pizzas") }
    func nextSequence() throws -> Int64 { try nextID("SELECT coalesce(max(seq), 0) + 1 FROM audit_log") }

    private func nextID(_ sql: String) throws -> Int64 {
        try db.statement(sql).first { $0.int64(0) } ?? 1
    }
}
