import Dispatch
public import PizzaCore

/// An ``OrderStore`` in memory: the repository's tests run one body against it and against SQLite, so what
/// they check is the repository's behaviour and not one store's. Not for the daemon: nothing survives the process.
///
/// One serial writer, like SQLite's: each write runs on a copy of the tables and replaces them only when it
/// returns (a write that throws leaves nothing), then the change hears that it committed, in commit order.
/// Rows are written by the subscribers, as in SQLite: ``InMemoryPersistence`` saves each change's order.
public final class InMemoryOrderStore: OrderStore {
    public typealias Transaction = InMemoryTransaction

    private let tables = Locked(InMemoryTables())
    private let queue = DispatchQueue(label: "pizzad.in-memory-writer")

    public init() {}

    /// Runs `change` on a copy of the tables, keeps the copy if it returned, then tells it (see ``OrderStore``).
    public func submit(_ change: PendingChange<InMemoryOrderStore>) {
        queue.async { [tables] in
            let transaction = InMemoryTransaction(tables.value)
            do {
                try change.run(in: transaction)
            } catch {
                return change.failed(error)
            }
            tables.withLock { $0 = transaction.tables }
            change.committed()
        }
    }

    /// Runs a change that belongs to no order, as ``submit(_:)-(PendingChange<InMemoryOrderStore>)`` runs an order's.
    public func submit(_ change: PendingShopChange<InMemoryOrderStore>) {
        queue.async { [tables] in
            let transaction = InMemoryTransaction(tables.value)
            do {
                try change.run(in: transaction)
            } catch {
                return change.failed(error)
            }
            tables.withLock { $0 = transaction.tables }
            change.committed()
        }
    }

    public func cart(id: Int64) throws -> Cart? { tables.value.carts[id] }

    public func cart(ref: String) throws -> Cart? {
        let tables = tables.value
        return tables.refs[ref].flatMap { tables.carts[$0] }
    }

    public func list(_ query: OrderQuery) throws -> OrderPage {
        let matching = tables.value.carts.values
            .filter { cart in
                (query.status.map { cart.status == $0 } ?? true)
                    && (query.since.map { cart.createdAt >= $0 } ?? true)
                    && (query.after.map { cart.id < $0 } ?? true)
            }
            .sorted { $0.id > $1.id }
        let page = Array(matching.prefix(query.limit))
        return OrderPage(orders: page, next: matching.count > query.limit ? page.last?.id : nil)
    }

    public func countsByStatus() throws -> [OrderStatus: Int] {
        var counts = Dictionary(uniqueKeysWithValues: OrderStatus.allCases.map { ($0, 0) })
        for cart in tables.value.carts.values { counts[cart.status, default: 0] += 1 }
        return counts
    }

    /// How many changes were committed (the last sequence number handed out and kept).
    public var lastSequence: Int64 { tables.value.nextSequence - 1 }
}

/// The store's rows: orders by id, ids by ref, and the next numbers.
public struct InMemoryTables: Sendable {
    var carts: [Int64: Cart] = [:]
    var refs: [String: Int64] = [:]
    var nextCartID: Int64 = 1
    var nextItemID: Int64 = 1
    var nextSequence: Int64 = 1
}

/// The in-memory store's write handle: a copy of the tables that becomes them when the write returns.
public final class InMemoryTransaction: OrderTransaction {
    fileprivate(set) var tables: InMemoryTables

    init(_ tables: InMemoryTables) { self.tables = tables }

    public func cart(id: Int64) throws -> Cart? { tables.carts[id] }
    public func cart(ref: String) throws -> Cart? { tables.refs[ref].flatMap { tables.carts[$0] } }

    public func nextCartID() throws -> Int64 {
        defer { tables.nextCartID += 1 }
        return tables.nextCartID
    }

    public func nextItemIDs(count: Int) throws -> Int64 {
        defer { tables.nextItemID += Int64(count) }
        return tables.nextItemID
    }

    public func nextSequence() throws -> Int64 {
        defer { tables.nextSequence += 1 }
        return tables.nextSequence
    }

    /// Writes `cart` as it is now (what ``InMemoryPersistence`` does for each change); a new order whose ref another
    /// order has is refused with ``RefInUse``, as SQLite's unique index on `carts.ref` refuses it.
    public func save(_ cart: Cart) throws {
        if let ref = cart.ref, let holder = tables.refs[ref], holder != cart.id { throw RefInUse(ref: ref) }
        tables.carts[cart.id] = cart
        if let ref = cart.ref { tables.refs[ref] = cart.id }
    }
}

/// The in-memory persistence layer: saves each change's order inside its transaction, as ``PersistenceLayer``
/// writes the rows in SQLite. Subscribe it to ``OrderRepository/writers`` and keep it alive.
public final class InMemoryPersistence: OrderChangeWriter {
    public init() {}

    public func repository(willCommit change: OrderChange, in transaction: InMemoryTransaction) throws {
        try transaction.save(change.after)
    }
}

/// The in-memory store with its persistence subscribed, as ``OrderBook`` wires SQLite's: own it for as long as
/// the repository is used (the repository holds its writers weakly).
public final class InMemoryOrderBook: Sendable {
    public let store = InMemoryOrderStore()
    public let persistence = InMemoryPersistence()
    public let repository: OrderRepository<InMemoryOrderStore>

    public init(clock: @escaping @Sendable () -> Timestamp = { .now() }) {
        repository = OrderRepository(store: store, clock: clock)
        repository.writers += persistence
    }
}
