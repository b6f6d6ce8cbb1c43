public import PizzaCore

/// The shop's orders as one unit: the SQLite store, the repository every change goes through, and the two
/// subscribers that write each change inside its transaction (``PersistenceLayer`` and ``AuditLogger``).
///
/// The repository holds its subscribers weakly, so a subscriber that must hear every change needs an owner that
/// lives as long as the repository: this is it, in the daemon and in the tests alike. Subscribers that may come
/// and go (metrics, watchers, the replicator) are owned by whoever adds them.
public final class OrderBook: Sendable {
    public let store: SQLiteOrderStore
    public let repository: OrderRepository<SQLiteOrderStore>
    /// Writes `carts`, `pizzas` and `status_history`.
    public let persistence = PersistenceLayer()
    /// Appends the hash-chained `audit_log` entry.
    public let audit = AuditLogger()
    /// Keeps the order API's `Idempotency-Key`s with the changes they asked for.
    public let requests = RequestLog()

    /// The repository over `store`, with persistence, audit and the request log subscribed (in that order); `clock`
    /// stamps changes.
    public init(store: SQLiteOrderStore, clock: @escaping @Sendable () -> Timestamp = { .now() }) {
        self.store = store
        repository = OrderRepository(store: store, clock: clock)
        repository.writers += persistence
        repository.writers += audit
        repository.writers += requests
    }
}
