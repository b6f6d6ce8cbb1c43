/// A write transaction as the domain sees it: reads inside it, and the numbers a new change needs.
///
/// The store supplies the concrete type, which is also its write handle: the repository passes the transaction to
/// its subscribers (``OrderRepositoryDelegate/repository(willCommit:in:)``), and a storage subscriber writes its
/// rows through it.
public protocol OrderTransaction {
    /// The order with `id` as the transaction sees it.
    func cart(id: Int64) throws -> Cart?
    /// The order with `ref` as the transaction sees it.
    func cart(ref: String) throws -> Cart?
    /// The id for a new order.
    func nextCartID() throws -> Int64
    /// The id for a new item.
    func nextItemID() throws -> Int64
    /// The sequence number for the next change.
    func nextSequence() throws -> Int64
}
