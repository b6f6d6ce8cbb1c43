/// Where orders live: the repository's view of the storage (SQLite in the daemon).
///
/// Changes run through ``submit(_:)``, which gives each a transaction to read the current state from and tells it
/// only once the transaction is durably committed.
public protocol OrderStore: Sendable {
    /// The write handle a change's body gets, and the repository hands on to the subscribers that write inside
    /// the transaction (``OrderChangeWriter``): the store's own type, so no one casts it.
    associatedtype Transaction: OrderTransaction

    /// Runs `change` in a write transaction (``PendingChange/run(in:)``) and commits it, then calls its
    /// ``PendingChange/committed()``; or its ``PendingChange/failed(_:)`` with what the run threw (nothing is kept
    /// then) or a storage error. Never before the commit is durable.
    ///
    /// `committed()` runs in commit order across concurrent changes, so announcements made from it (events) come
    /// out in the order the changes committed. Both run on the store's writer and must not block. A change may
    /// run more than once (the store retries a batch); only the last run counts.
    ///
    /// A callback rather than `async`: a change from the control socket is a few microseconds of work on either
    /// side of its commit, and a task and a continuation around it cost as much as the work (see
    /// ``OrderRepository/submit(_:by:key:completion:)``).
    func submit(_ change: PendingChange<Self>)

    /// Runs a change that belongs to no order (``PendingShopChange``) the same way: in a write transaction, told
    /// once it is durable.
    func submit(_ change: PendingShopChange<Self>)

    // Reads are synchronous: a short query on a connection of their own (in SQLite, one read transaction
    // each), so a caller on an event loop answers at once instead of hopping to another thread and back.

    /// The order with `id`, if any.
    func cart(id: Int64) throws -> Cart?
    /// The order with client reference `ref`, if any.
    func cart(ref: String) throws -> Cart?
    /// A page of orders, newest first.
    func list(_ query: OrderQuery) throws -> OrderPage
    /// How many orders are in each status.
    func countsByStatus() throws -> [OrderStatus: Int]
}
