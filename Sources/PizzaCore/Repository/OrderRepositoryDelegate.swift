/// A subscriber to the repository's changes, held weakly by its ``MulticastDelegate``: whoever wires it up owns
/// it (in pizzad, `OrderBook` owns the storage subscribers and the daemon's state the rest).
///
/// Announcements come in two phases:
/// 1. ``repository(willCommit:in:)`` inside the write transaction, on the writer's thread, with that transaction:
///    the persistence layer writes the rows and the audit logger appends its entry through it, so a change and its
///    audit entry commit together or not at all. Throwing rolls the whole change back and the caller gets the error.
///    A store may run a change again in a new transaction (SQLite's does when another change of its group commit
///    failed after writing rows), so this may be called more than once for the same change: write only through
///    the transaction, and keep nothing from it outside.
/// 2. ``repository(didCommit:latency:)`` after the commit is durable (metrics, live watchers). It must not block.
///
/// All methods have empty defaults; implement the ones you need.
public protocol OrderRepositoryDelegate: AnyObject, Sendable {
    /// The change is about to commit in `transaction` (the storage's write handle: the store that made it says
    /// what it is); write what must commit with it, or throw to refuse it.
    func repository(willCommit change: OrderChange, in transaction: any OrderTransaction) throws
    /// The change committed; `latency` is how long the commit took.
    func repository(didCommit change: OrderChange, latency: Duration)
    /// A change was refused or could not be stored.
    func repository(didFail operation: String, error: any Error)
}

extension OrderRepositoryDelegate {
    public func repository(willCommit change: OrderChange, in transaction: any OrderTransaction) throws {}
    public func repository(didCommit change: OrderChange, latency: Duration) {}
    public func repository(didFail operation: String, error: any Error) {}
}
