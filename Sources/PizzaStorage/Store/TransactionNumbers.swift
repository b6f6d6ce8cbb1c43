/// The numbers group commits hand out: the next order id, item id and change sequence, and the audit chain's head.
/// Each is read from its table once, then counted on, instead of asking `max(…)` again for every change.
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

    init() {}

    /// Where the numbers stand before a change.
    var mark: Next { next }

    /// Gives back what the changes since `mark` took.
    func rewind(to mark: Next) { next = mark }
}
