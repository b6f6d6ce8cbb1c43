import PizzaCore
import SQLite

/// The ``OrderTransaction`` a write body gets, and the storage's write handle: it reads and writes through the
/// writer connection, inside the open transaction.
struct WriteTransaction: OrderTransaction {
    let db: Database
    /// What the group commit's transaction has handed out so far; shared by every write in it.
    let numbers: TransactionNumbers

    init(db: Database, numbers: TransactionNumbers) {
        self.db = db
        self.numbers = numbers
    }

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

    func nextCartID() throws -> Int64 {
        try take(1, from: &numbers.next.cart, firstFree: "SELECT coalesce(max(id), 0) + 1 FROM carts")
    }

    func nextItemIDs(count: Int) throws -> Int64 {
        try take(Int64(count), from: &numbers.next.item, firstFree: "SELECT coalesce(max(id), 0) + 1 FROM pizzas")
    }

    func nextSequence() throws -> Int64 {
        try take(1, from: &numbers.next.sequence, firstFree: "SELECT coalesce(max(seq), 0) + 1 FROM audit_log")
    }

    /// The hash of the audit chain's last entry as this transaction has it (``AuditLogger/genesis`` when empty).
    func auditChainHead() throws -> String {
        if let head = numbers.next.auditHead { return head }
        let head =
            try db.statement("SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1").first { $0.string(0) }
            ?? AuditLogger.genesis
        numbers.next.auditHead = head
        return head
    }

    /// Records the hash of the entry just appended to the audit chain.
    func appended(auditEntryHash hash: String) { numbers.next.auditHead = hash }

    /// Hands out `count` consecutive numbers from `counter`, asking the table for the first free one only the
    /// first time in the transaction.
    private func take(_ count: Int64, from counter: inout Int64?, firstFree sql: StaticString) throws -> Int64 {
        let first = try counter ?? db.statement(literal: sql).first { $0.int64(0) } ?? 1
        counter = first + count
        return first
    }
}
