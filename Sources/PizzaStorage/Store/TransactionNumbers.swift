/// The numbers one group commit's transaction hands out: the next order id, item id and change sequence, and the
/// audit chain's head. Each is read from its table once per transaction, then counted on, instead of asking
/// `max(…)` again for every change.
///
/// Only the writer's queue touches it, for the length of one transaction. Everything a change took is given back
/// when it fails alone (``mark`` before the change, ``rewind(to:)`` after its failure), and a new
/// transaction starts from the tables again, so the numbers always match the rows that were written.
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
