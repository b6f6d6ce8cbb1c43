/// Where orders live: the repository's view of the storage (SQLite in the daemon).
///
/// Writes run through ``write(_:afterCommit:completion:)``, which gives the body a transaction to read the current
/// state from and calls back only once the transaction is durably committed.
public protocol OrderStore: Sendable {
    /// The write handle a change's body gets, and the repository hands on to the subscribers that write inside
    /// the transaction (``OrderChangeWriter``): the store's own type, so no one casts it.
    associatedtype Transaction: OrderTransaction

    /// Runs `body` in a write transaction and commits it, then calls `completion` with what `body` returned; or
    /// with what `body` threw (nothing is kept then) or a storage error. Never before the commit is durable.
    ///
    /// `afterCommit` runs once the commit is durable and before `completion`, in commit order across concurrent
    /// writes, so announcements made from it (events) come out in the order the changes committed. Both run on the
    /// store's writer and must not block.
    ///
    /// A callback rather than `async`: a change from the control socket is a few microseconds of work on either
    /// side of its commit, and a task and a continuation around it cost as much as the work (see
    /// ``OrderRepository/submit(_:by:completion:)``). ``write(_:afterCommit:)`` is the `async` form.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (Transaction) throws -> T,
        afterCommit: @escaping @Sendable (T) -> Void,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    )

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

extension OrderStore {
    /// ``write(_:afterCommit:completion:)``, returning once the commit is durable.
    public func write<T: Sendable>(
        _ body: @escaping @Sendable (Transaction) throws -> T,
        afterCommit: @escaping @Sendable (T) -> Void
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            write(body, afterCommit: afterCommit) { continuation.resume(with: $0) }
        }
    }

    /// ``write(_:afterCommit:)`` with nothing to do after the commit.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try await write(body, afterCommit: { _ in })
    }
}
