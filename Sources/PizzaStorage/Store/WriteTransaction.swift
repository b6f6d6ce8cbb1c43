public import PizzaCore
import SQLite

/// The ``OrderTransaction`` a write body gets, and the storage's write handle: it reads and writes through the
/// writer connection, inside the open transaction. The store's `Transaction`, so the repository hands it to the
/// storage's subscribers typed: nothing is cast.
public struct WriteTransaction: OrderTransaction {
    let db: Database
    /// What the group commit's transaction has handed out so far; shared by every write in it.
    let numbers: TransactionNumbers
    /// The writer's `PRAGMA data_version` when the transaction began (see ``OrderWriteRules/carriedNumbers``).
    let dataVersion: Int64

    init(db: Database, numbers: TransactionNumbers, dataVersion: Int64 = 0) {
        self.db = db
        self.numbers = numbers
        self.dataVersion = dataVersion
    }

    /// The order `id` as this transaction sees it: as the last change to it wrote it, when that is known
    /// (``TransactionNumbers/carts``), else read from its rows.
    public func cart(id: Int64) throws -> Cart? {
        guard let written = numbers.carts[id] else { return try db.loadCart(id: id) }
        #if DEBUG
            // Every test that changes an order twice checks that what was kept is what the rows say.
            let read = try db.loadCart(id: id)
            precondition(read == written, "order \(id) kept as \(written), its rows say \(String(describing: read))")
        #endif
        return written
    }
    /// The order with `ref` as this transaction sees it.
    public func cart(ref: String) throws -> Cart? { try db.loadCart(ref: ref) }

    /// The next order number, taken for this transaction.
    public func nextCartID() throws -> Int64 {
        try take(1, from: &numbers.next.cart, firstFree: "SELECT coalesce(max(id), 0) + 1 FROM carts")
    }

    /// The first of `count` consecutive ids for an order's lines (pizzas, products, discounts, payments: one
    /// numbering, so an id names one line), taken for this transaction.
    public func nextItemIDs(count: Int) throws -> Int64 {
        try take(
            Int64(count), from: &numbers.next.item,
            firstFree: """
                SELECT max((SELECT coalesce(max(id), 0) FROM pizzas), (SELECT coalesce(max(id), 0) FROM order_items),
                           (SELECT coalesce(max(id), 0) FROM discounts), (SELECT coalesce(max(id), 0) FROM payments)) + 1
                """)
    }

    /// The next change's sequence number (its audit entry's), taken for this transaction.
    public func nextSequence() throws -> Int64 {
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
