/// Where orders live: the repository's view of the storage (SQLite in the daemon).
///
/// Writes run through ``write(_:)``, which gives the body a transaction to read the current state from and
/// returns only once the transaction is durably committed.
public protocol OrderStore: Sendable {
    /// Runs `body` in a write transaction and commits it; throws what `body` throws (nothing is kept then) or a
    /// storage error. Returns after the commit is durable.
    ///
    /// `afterCommit` runs once the commit is durable and before the caller resumes, in commit order across
    /// concurrent writes, so announcements made from it (events) come out in the order the changes committed.
    /// It must not block.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (any OrderTransaction) throws -> T,
        afterCommit: @escaping @Sendable (T) -> Void
    ) async throws -> T

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
    /// ``write(_:afterCommit:)`` with nothing to do after the commit.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any OrderTransaction) throws -> T) async throws -> T {
        try await write(body, afterCommit: { _ in })
    }
}

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

/// Which orders to list.
public struct OrderQuery: Sendable, Equatable {
    /// The page sizes allowed, for orders and audit entries alike.
    public static let limitRange = 1...1000

    /// `limit` as a page size; throws ``OrderError/validation(field:allowed:message:)`` outside ``limitRange``.
    public static func checkedLimit(_ limit: Int64) throws(OrderError) -> Int {
        guard limit >= limitRange.lowerBound, limit <= limitRange.upperBound else {
            throw OrderError.validation(
                field: "limit", allowed: ["\(limitRange.lowerBound)..\(limitRange.upperBound)"],
                message: "limit \(limit) is out of range")
        }
        return Int(limit)
    }
    /// Only orders in this status.
    public var status: OrderStatus?
    /// Only orders created at or after this time.
    public var since: Timestamp?
    /// Page size, 1…1000.
    public var limit: Int
    /// The cursor: list orders older than (with an id below) this one.
    public var after: Int64?

    public init(status: OrderStatus? = nil, since: Timestamp? = nil, limit: Int = 50, after: Int64? = nil) {
        self.status = status
        self.since = since
        self.limit = limit
        self.after = after
    }
}

/// One page of orders and the cursor for the next.
public struct OrderPage: Sendable, Equatable {
    public var orders: [Cart]
    /// Pass as `after` to get the next page; nil on the last page.
    public var next: Int64?

    public init(orders: [Cart], next: Int64?) {
        self.orders = orders
        self.next = next
    }
}
