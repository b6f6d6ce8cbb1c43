import PizzaCore
import PizzaStorage
import PizzaTesting
import Testing

/// The stores the repository's behaviour is checked on: SQLite as pizzad runs it, and in memory. One test body
/// runs on both, so what it checks is the repository's and not one store's.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, memory
    var testDescription: String { rawValue }
}

/// Hears every change after its commit, and every failure.
final class RecordingDelegate: OrderRepositoryDelegate {
    let committed = Locked<[Int64]>([])
    let failed = Locked<[OrderOperation]>([])
    func repository(didCommit change: OrderChange, latency: Duration) {
        committed.withLock { $0.append(change.sequence) }
    }
    func repository(didFail operation: OrderOperation, error: any Error) { failed.withLock { $0.append(operation) } }
}

@Suite("The repository, on every store")
struct RepositoryOnEveryStoreTests {
    static func newOrder<S>(_ repository: OrderRepository<S>, _ kinds: [String] = ["cheese"], place: Bool = false)
        async throws -> Cart
    {
        try await repository.create(
            customer: "Ann", pizzas: try kinds.map { try Fixtures.factory.makePizza($0) }, place: place,
            currency: "EUR", by: Fixtures.actor
        ).cart
    }

    @Test(
        "the full life of an order: items, place, a conflict, five steps, what cannot be done",
        arguments: StoreKind.allCases)
    func lifecycle(_ store: StoreKind) async throws {
        switch store {
        case .sqlite:
            let kitchen = try Kitchen()
            try await Self.lifecycle(kitchen.repository)
            let verification = try kitchen.store.verifyAudit()
            #expect(verification.ok && verification.entries == 9)
        case .memory:
            let kitchen = InMemoryOrderBook()
            try await Self.lifecycle(kitchen.repository)
            #expect(kitchen.store.lastSequence == 9)
        }
    }

    static func lifecycle<S>(_ repository: OrderRepository<S>) async throws {
        var cart = try await newOrder(repository)
        cart = try await repository.addItem(
            try Fixtures.factory.builder(for: "chicken").size("L").extra("olives").quantity(2).build(), to: cart.id,
            by: Fixtures.actor
        ).cart
        #expect(cart.items.count == 2)
        #expect(cart.total == 900 + 2 * (1250 + 80))
        cart = try await repository.removeItem(cart.items[0].id, from: cart.id, by: Fixtures.actor).cart
        cart = try await repository.place(cart.id, by: Fixtures.actor).cart
        await #expect(throws: OrderError.conflict(id: cart.id, expected: .baking, actual: .placed)) {
            try await repository.advance(cart.id, from: .baking, by: Fixtures.actor)
        }
        for _ in 0..<5 { cart = try await repository.advance(cart.id, by: Fixtures.actor).cart }
        #expect(cart.status == .delivered)
        #expect(try repository.cart(id: cart.id) == cart)
        await #expect(throws: OrderError.self) { try await repository.cancel(cart.id, reason: "x", by: Fixtures.actor) }
        #expect(throws: OrderError.notFound("with id 999")) { try repository.cart(id: 999) }
        #expect(try repository.countsByStatus()[.delivered] == 1)
    }

    @Test("a ref makes creation idempotent", arguments: StoreKind.allCases)
    func idempotentRef(_ store: StoreKind) async throws {
        switch store {
        case .sqlite:
            let kitchen = try Kitchen()
            try await Self.idempotentRef(kitchen.repository)
            #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM carts") == "1")
        case .memory:
            let kitchen = InMemoryOrderBook()
            try await Self.idempotentRef(kitchen.repository)
            withExtendedLifetime(kitchen) {}
        }
    }

    static func idempotentRef<S>(_ repository: OrderRepository<S>) async throws {
        let pizza = try Fixtures.factory.makePizza("cheese")
        let first = try await repository.create(ref: "till-7", pizzas: [pizza], currency: "EUR", by: Fixtures.actor)
        let again = try await repository.create(
            ref: "till-7", pizzas: [pizza, pizza], currency: "EUR", by: Fixtures.actor)
        #expect(first.created && !again.created)
        #expect(again.cart == first.cart)
        #expect(try repository.cart(ref: "till-7").id == first.cart.id)
        #expect(try repository.list(OrderQuery()).orders.count == 1)
    }

    @Test(
        "a retry is answered with the order as it is now, after every later change, also once it is older than the newest kept in memory",
        arguments: StoreKind.allCases)
    func retryAnswersTheOrderAsItIsNow(_ store: StoreKind) async throws {
        switch store {
        case .sqlite:
            let kitchen = try Kitchen()
            try await Self.retryAnswersTheOrderAsItIsNow(kitchen.repository)
        case .memory:
            let kitchen = InMemoryOrderBook()
            try await Self.retryAnswersTheOrderAsItIsNow(kitchen.repository)
            withExtendedLifetime(kitchen) {}
        }
    }

    static func retryAnswersTheOrderAsItIsNow<S>(_ repository: OrderRepository<S>) async throws {
        let pizza = try Fixtures.factory.makePizza("cheese")
        func retry(_ ref: String) async throws -> OrderOutcome {
            try await repository.create(ref: ref, pizzas: [pizza], currency: "EUR", by: Fixtures.actor)
        }
        let first = try await retry("till-1")
        #expect(first.created)
        var again = try await retry("till-1")
        var stored = try repository.cart(id: first.cart.id)
        #expect(!again.created && again.cart == stored)
        _ = try await repository.place(first.cart.id, by: Fixtures.actor)
        _ = try await repository.advance(first.cart.id, by: Fixtures.actor)
        again = try await retry("till-1")
        stored = try repository.cart(id: first.cart.id)
        #expect(again.cart.status == .preparing && again.cart.history.count == 3)
        #expect(again.cart == stored)
        _ = try await repository.cancel(first.cart.id, reason: "the customer left", by: Fixtures.actor)
        again = try await retry("till-1")
        stored = try repository.cart(id: first.cart.id)
        #expect(again.cart.status == .cancelled && again.cart == stored)
        // 1,100 newer orders: till-1 is no longer among those kept in memory, and is read.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<1_100 { group.addTask { _ = try await retry("till-bulk-\(n)") } }
            try await group.waitForAll()
        }
        again = try await retry("till-1")
        stored = try repository.cart(id: first.cart.id)
        #expect(!again.created && again.cart == stored)
    }

    @Test(
        "the same ref sent 20 times at once (one group commit): one order, every answer that order, one of them created, no failure heard",
        arguments: StoreKind.allCases)
    func refRace(_ store: StoreKind) async throws {
        switch store {
        case .sqlite:
            let kitchen = try Kitchen()
            try await Self.refRace(kitchen.repository)
            #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM carts") == "1")
            #expect(try kitchen.store.verifyAudit().entries == 1)
        case .memory:
            let kitchen = InMemoryOrderBook()
            try await Self.refRace(kitchen.repository)
            #expect(kitchen.store.lastSequence == 1)
        }
    }

    static func refRace<S>(_ repository: OrderRepository<S>) async throws {
        let recorder = RecordingDelegate()
        repository.delegates += recorder
        let pizza = try Fixtures.factory.makePizza("cheese")
        let outcomes = try await withThrowingTaskGroup(of: OrderOutcome.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await repository.create(ref: "till-9", pizzas: [pizza], currency: "EUR", by: Fixtures.actor)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(outcomes.map(\.cart.id)).count == 1)
        #expect(outcomes.filter(\.created).count == 1)
        #expect(recorder.failed.value.isEmpty, "a taken ref is answered, not failed: \(recorder.failed.value)")
        #expect(recorder.committed.value == [1])
        withExtendedLifetime(recorder) {}
    }

    @Test("list by status pages newest first with a cursor", arguments: StoreKind.allCases)
    func paging(_ store: StoreKind) async throws {
        switch store {
        case .sqlite:
            let kitchen = try Kitchen()
            try await Self.paging(kitchen.repository)
            withExtendedLifetime(kitchen) {}
        case .memory:
            let kitchen = InMemoryOrderBook()
            try await Self.paging(kitchen.repository)
            withExtendedLifetime(kitchen) {}
        }
    }

    static func paging<S>(_ repository: OrderRepository<S>) async throws {
        var ids: [Int64] = []
        for index in 0..<7 { ids.append(try await newOrder(repository, place: index % 2 == 0).id) }
        let placed = ids.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        var seen: [Int64] = []
        var cursor: Int64?
        repeat {
            let page = try repository.list(OrderQuery(status: .placed, limit: 2, after: cursor))
            seen += page.orders.map(\.id)
            cursor = page.next
        } while cursor != nil
        #expect(seen == placed.reversed())
        #expect(throws: OrderError.self) { try repository.list(OrderQuery(limit: 0)) }
    }

    @Test(
        "a writer that refuses one customer's changes: those fail with its error and leave nothing, 40 others commit with distinct ids and sequences, heard in commit order",
        arguments: StoreKind.allCases)
    func refusedAmongMany(_ store: StoreKind) async throws {
        switch store {
        case .sqlite:
            let kitchen = try Kitchen()
            try await Self.refusedAmongMany(kitchen.repository)
            #expect(try kitchen.store.verifyAudit().ok)
        case .memory:
            let kitchen = InMemoryOrderBook()
            try await Self.refusedAmongMany(kitchen.repository)
            withExtendedLifetime(kitchen) {}
        }
    }

    static func refusedAmongMany<S>(_ repository: OrderRepository<S>) async throws {
        let refusing = RefusingSubscriber<S.Transaction>(customer: "refuse")
        repository.writers += refusing
        let recording = RecordingDelegate()
        repository.delegates += recording
        let pizza = try Fixtures.factory.makePizza("cheese")
        let outcomes = await withTaskGroup(of: Result<Cart, any Error>.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        return .success(
                            try await repository.create(
                                customer: index % 5 == 0 ? "refuse" : "guest \(index)", pizzas: [pizza],
                                currency: "EUR", by: Fixtures.actor
                            ).cart)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let carts: [Cart] = outcomes.compactMap { try? $0.get() }
        let refusals = outcomes.filter {
            if case .failure(let error) = $0 { return error is RefusingSubscriber<S.Transaction>.Refused }
            return false
        }
        #expect(carts.count == 40 && refusals.count == 10)
        let ids = carts.map { $0.id }
        #expect(Set(ids).count == 40 && ids.max() == 40, "ids are taken only by commits")
        #expect(recording.committed.value == Array(1...40), "heard in commit order, with no gap")
        #expect(recording.failed.value == Array(repeating: .create, count: 10))
        #expect(try repository.countsByStatus()[.open] == 40)
        repository.writers -= refusing
        #expect(try await newOrder(repository).id == 41)
    }
}
