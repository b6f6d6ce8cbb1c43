import PizzaCore

/// The numbers group commits hand out: the next order id, item id and change sequence, and the audit chain's head.
/// Each is read from its table once, then counted on, instead of asking `max(…)` again for every change. Beside them,
/// the orders as the last changes wrote them (``carts``), so that the next change to one (a payment after its order,
/// the kitchen's steps) does not read its seven tables back.
///
/// Only the writer's queue touches it. Everything a change took is given back when it fails alone (``mark`` before
/// the change, ``rewind(to:)`` after its failure). The store carries it from one committed group commit into the
/// next; after a failure, a rollback or a maintenance block the next transaction starts from the tables again, so
/// the numbers always match the rows that were written.
final class TransactionNumbers {
    struct Next {
        var cart: Int64?
        var item: Int64?
        var sequence: Int64?
        var auditHead: String?
    }

    var next = Next()

    /// Orders as this transaction's changes (and, carried, the last committed ones') left them, by id: what the
    /// persistence layer wrote, so the same as reading its rows back (checked so in debug builds). Kept with the
    /// numbers, so dropped with them whenever anything else may have written the tables; emptied when a change
    /// fails (rare: not worth a copy per change to give back only its own).
    private(set) var carts: [Int64: Cart] = [:]
    /// At most this many orders are kept (a few hundred KiB): the ones a kitchen is working on.
    static let keptCarts = 512

    init() {}

    /// Where the numbers stand before a change.
    var mark: Next { next }

    /// Gives back what the changes since `mark` took.
    func rewind(to mark: Next) {
        next = mark
        carts.removeAll()
    }

    /// Keeps `cart` as the change being written leaves it.
    func written(_ cart: Cart) {
        if carts.count >= Self.keptCarts, carts[cart.id] == nil { carts.removeAll(keepingCapacity: true) }
        carts[cart.id] = cart
    }
}
