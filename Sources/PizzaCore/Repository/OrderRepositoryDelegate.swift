/// A subscriber to the repository's changes after they commit, held weakly by its ``MulticastDelegate``: whoever
/// wires it up owns it (in pizzad, the daemon's state owns the metrics collector, the watchers and the shipper).
///
/// Announcements come in two phases:
/// 1. Inside the write transaction, to the subscribers that write with the change (``OrderChangeWriter``, in
///    ``OrderRepository/writers``): the persistence layer writes the rows and the audit logger appends its entry.
/// 2. After the commit is durable, to these: ``repository(didCommit:latency:)`` (metrics, live watchers), or
///    ``repository(didFail:error:)``. They must not block.
///
/// Both methods have empty defaults; implement the ones you need.
public protocol OrderRepositoryDelegate: AnyObject, Sendable {
    /// The change committed; `latency` is how long the commit took.
    func repository(didCommit change: OrderChange, latency: Duration)
    /// A change was refused or could not be stored.
    func repository(didFail operation: OrderOperation, error: any Error)
    /// A change that belongs to no order (an item's availability, a Z report) committed.
    func repository(didCommit change: ShopChange)
}

extension OrderRepositoryDelegate {
    public func repository(didCommit change: OrderChange, latency: Duration) {}
    public func repository(didFail operation: OrderOperation, error: any Error) {}
    /// Nothing, unless the delegate hears of changes that belong to no order.
    public func repository(didCommit change: ShopChange) {}
}

/// A subscriber that writes with each change, inside its transaction, through the store's own write handle
/// (`Transaction`, the store's ``OrderStore/Transaction``): the persistence layer writes the rows and the audit
/// logger appends its entry, so a change and its audit entry commit together or not at all. Held weakly by
/// ``OrderRepository/writers``; the store's owner owns it (``OrderBook`` in pizzad).
///
/// Throwing rolls the whole change back and the caller gets the error. A store may run a change again in a new
/// transaction (SQLite's does when another change of its group commit failed after writing rows), so this may be
/// called more than once for the same change: write only through the transaction, and keep nothing from it
/// outside. It runs on the store's writer.
public protocol OrderChangeWriter<Transaction>: AnyObject, Sendable {
    associatedtype Transaction: OrderTransaction
    /// The change is about to commit in `transaction`; write what must commit with it, or throw to refuse it.
    func repository(willCommit change: OrderChange, in transaction: Transaction) throws
    /// A change that belongs to no order is about to commit in `transaction` (the audit logger appends its entry).
    func repository(willCommit change: ShopChange, in transaction: Transaction) throws
}

extension OrderChangeWriter {
    /// Nothing to write for a change that belongs to no order.
    public func repository(willCommit change: ShopChange, in transaction: Transaction) throws {}
}
