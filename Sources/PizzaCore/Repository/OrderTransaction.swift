/// A write transaction as the domain sees it: reads inside it, and the numbers a new change needs.
///
/// The store supplies the concrete type (``OrderStore/Transaction``), which is also its write handle: the
/// repository passes the transaction to the subscribers that write inside it (``OrderChangeWriter``), typed.
public protocol OrderTransaction {
    /// The order with `id` as the transaction sees it.
    func cart(id: Int64) throws -> Cart?
    /// The order with `ref` as the transaction sees it.
    func cart(ref: String) throws -> Cart?
    /// The id for a new order, taken: the next call in the same transaction gives the one after it.
    func nextCartID() throws -> Int64
    /// The first of `count` consecutive ids for new items, all taken.
    func nextItemIDs(count: Int) throws -> Int64
    /// The sequence number for the next change, taken.
    func nextSequence() throws -> Int64
}
