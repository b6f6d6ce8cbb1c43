/// The one place every change to an order goes through.
///
/// Each change is computed from the order as the write transaction sees it, announced to the subscribers that
/// write with it inside the transaction (``writers``: persistence, audit), committed, and only then acknowledged to
/// the caller and announced to the others (``delegates``: metrics, watchers). See ``OrderRepositoryDelegate`` for
/// the two phases. Generic over its store so that the writers get the store's own write handle, typed.
public final class OrderRepository<Store: OrderStore>: Sendable {
    /// The subscribers that write inside each change's transaction, held weakly.
    public let writers = MulticastDelegate<any OrderChangeWriter<Store.Transaction>>()
    /// The subscribers told after each commit or failure, held weakly.
    public let delegates = MulticastDelegate<any OrderRepositoryDelegate>()
    @usableFromInline let store: Store
    @usableFromInline let clock: @Sendable () -> Timestamp
    /// The refs of the orders created last, so that a retried `create` is answered without the writer.
    @usableFromInline let recentRefs = RecentRefs()
    /// The wire text of the orders changed last, for the next change's `before` (only the store's writer uses it).
    @usableFromInline let recentTexts = RecentTexts()
    /// The menu items off for now: an order or an item that needs one is refused before it reaches the store.
    public let availability = Availability()

    /// A repository over `store`; `clock` gives the time changes are stamped with.
    public init(store: Store, clock: @escaping @Sendable () -> Timestamp = { .now() }) {
        self.store = store
        self.clock = clock
    }

    // MARK: Changes

    /// Runs the change `request` asks for and calls `completion` with its outcome once it is durable, or with why it
    /// was refused or failed. `completion` runs on the store's writer (keep it short: hand the outcome on), or at once
    /// on the caller's thread for a request refused before it reached the store, and for a `create` whose `ref` names
    /// a recent order (a till's retry), which is read from the store's read pool and changes nothing.
    ///
    /// The control socket uses this form: a task and a continuation per change cost as much as the work the event
    /// loop does for it. The `async` methods below are the same changes for callers in Swift concurrency.
    @inlinable
    public func submit(
        _ request: consuming ChangeRequest, by actor: ChangeActor, key: RequestKey? = nil,
        completion: @escaping @Sendable (Result<OrderOutcome, any Error>) -> Void
    ) {
        switch consume request {
        case .create(let order):
            create(order, by: actor, key: key, completion)
        case .addItem(let pizza, let id):
            do {
                try availability.check(pizzas: CollectionOfOne(pizza), products: EmptyCollection())
            } catch {
                return completion(.failure(error))
            }
            modify(.addItem, id: id, kind: .itemAdded, by: actor, key: key, completion) { cart, tx, now in
                try cart.add(pizza, itemID: try tx.nextItemIDs(count: 1), at: now)
            }
        case .addProduct(let product, let id):
            do {
                try availability.check(pizzas: EmptyCollection(), products: CollectionOfOne(product))
            } catch {
                return completion(.failure(error))
            }
            modify(.addItem, id: id, kind: .itemAdded, by: actor, key: key, completion) { cart, tx, now in
                try cart.add(product, itemID: try tx.nextItemIDs(count: 1), at: now)
            }
        case .setFulfilment(let fulfilment, let fee, let id):
            modify(.setFulfilment, id: id, kind: .fulfilmentChanged, by: actor, key: key, completion) {
                cart, _, now in
                try cart.setFulfilment(fulfilment, deliveryFee: fee, at: now)
            }
        case .discount(let size, let item, let reason, let id):
            modify(.discount, id: id, kind: .discounted, reason: reason, by: actor, key: key, completion) {
                cart, tx, now in
                try cart.discount(
                    size, item: item, reason: reason, discountID: try tx.nextItemIDs(count: 1), by: actor, at: now)
            }
        case .pay(let tender, let amount, let ref, let id):
            modify(.pay, id: id, kind: .paid, by: actor, key: key, completion) { cart, tx, now in
                try cart.pay(
                    tender, amount: amount, ref: ref, paymentID: try tx.nextItemIDs(count: 1), by: actor, at: now)
            }
        case .refund(let payment, let amount, let reason, let id):
            modify(.refund, id: id, kind: .refunded, reason: reason, by: actor, key: key, completion) {
                cart, tx, now in
                try cart.refund(
                    payment: payment, amount: amount, reason: reason, refundID: try tx.nextItemIDs(count: 1),
                    by: actor, at: now)
            }
        case .removeItem(let itemID, let id):
            modify(.removeItem, id: id, kind: .itemRemoved, by: actor, key: key, completion) { cart, _, now in
                try cart.remove(itemID: itemID, at: now)
            }
        case .place(let id):
            modify(.place, id: id, kind: .placed, by: actor, key: key, completion) { cart, _, now in
                try cart.apply(.place, by: actor, at: now)
            }
        case .advance(let id, let from):
            modify(.advance, id: id, kind: .advanced, by: actor, key: key, completion) { cart, _, now in
                try cart.apply(.advance, expected: from, by: actor, at: now)
            }
        case .cancel(let id, let reason):
            modify(.cancel, id: id, kind: .cancelled, reason: reason, by: actor, key: key, completion) { cart, _, now in
                try cart.apply(.cancel, reason: reason, by: actor, at: now)
            }
        }
    }

    /// ``submit(_:by:key:completion:)``, returning once the change is durable.
    public func perform(
        _ request: ChangeRequest, by actor: ChangeActor, key: RequestKey? = nil
    ) async throws -> OrderOutcome {
        try await withCheckedThrowingContinuation { continuation in
            submit(request, by: actor, key: key) { continuation.resume(with: $0) }
        }
    }

    /// Creates an order, optionally with pizzas and placed at once. With a `ref` that exists, returns that
    /// order unchanged (an idempotent retry): `created` is false and there is no change.
    public func create(
        customer: String? = nil, ref: String? = nil, note: String? = nil, pizzas: [Pizza] = [], place: Bool = false,
        currency: String, by actor: ChangeActor
    ) async throws -> OrderOutcome {
        try await perform(
            .create(
                NewOrder(customer: customer, ref: ref, note: note, pizzas: pizzas, place: place, currency: currency)),
            by: actor)
    }

    /// Adds a pizza to an open order.
    public func addItem(_ pizza: Pizza, to id: Int64, by actor: ChangeActor) async throws -> OrderOutcome {
        try await perform(.addItem(pizza, order: id), by: actor)
    }

    /// Removes an item from an open order.
    public func removeItem(_ itemID: Int64, from id: Int64, by actor: ChangeActor) async throws -> OrderOutcome {
        try await perform(.removeItem(itemID, order: id), by: actor)
    }

    /// Places an open order that has items.
    public func place(_ id: Int64, by actor: ChangeActor) async throws -> OrderOutcome {
        try await perform(.place(order: id), by: actor)
    }

    /// Moves an order one step forward; with `from`, only if it is in that status.
    public func advance(_ id: Int64, from: OrderStatus? = nil, by actor: ChangeActor) async throws -> OrderOutcome {
        try await perform(.advance(order: id, from: from), by: actor)
    }

    /// Cancels an order that has not shipped.
    public func cancel(_ id: Int64, reason: String, by actor: ChangeActor) async throws -> OrderOutcome {
        try await perform(.cancel(order: id, reason: reason), by: actor)
    }

    @usableFromInline typealias Completion = @Sendable (Result<OrderOutcome, any Error>) -> Void

    @inlinable
    func create(
        _ order: NewOrder, by actor: ChangeActor, key: RequestKey? = nil, _ completion: @escaping Completion
    ) {
        do {
            if let ref = order.ref { try Cart.checkRef(ref) }
            try order.fulfilment.check()
            for pizza in order.pizzas { if let note = pizza.note { try Cart.checkNote(note) } }
            for product in order.products { if let note = product.note { try Cart.checkNote(note) } }
            try availability.check(pizzas: order.pizzas, products: order.products)
        } catch {
            return completion(.failure(error))
        }
        if order.place, order.itemCount == 0 {
            let message = "an order placed at creation needs an item"
            return completion(
                .failure(OrderError.validation(field: "items", allowed: ["at least one item"], message: message)))
        }
        // A retry of a recent order: answered as it is now, from memory or the read pool, without a write.
        if let ref = order.ref, let known = recentRefs.known(ref) {
            if let existing = known.order {
                return completion(.success(OrderOutcome(cart: existing, change: nil)))
            }
            if let existing = try? store.cart(id: known.id) {
                return completion(.success(OrderOutcome(cart: existing, change: nil)))
            }
        }
        // Its `ref` is not looked up first: the store's unique index refuses a taken one (``RefInUse``, nothing
        // written), and the create runs again, looking it up, to answer with the order that has it
        // (``PendingChange/failed(_:)``).
        store.submit(PendingChange(self, .create, .create(order), by: actor, key: key, completion: completion))
    }

    /// A change to an existing order: `mutate` changes it as the transaction sees it (see ``PendingChange``).
    @inlinable
    func modify(
        _ operation: OrderOperation, id: Int64, kind: OrderChange.Kind, reason: String? = nil, by actor: ChangeActor,
        key: RequestKey? = nil, _ completion: @escaping Completion,
        _ mutate: @escaping @Sendable (inout Cart, Store.Transaction, Timestamp) throws -> Void
    ) {
        let work = PendingChange<Store>.Work.modify(id: id, kind: kind, reason: reason, mutate: mutate)
        store.submit(PendingChange(self, operation, work, by: actor, key: key, completion: completion))
    }

    // MARK: Reads

    /// The order with `id`; throws ``OrderError/notFound(_:)``.
    public func cart(id: Int64) throws -> Cart {
        guard let cart = try store.cart(id: id) else { throw OrderError.notFound("with id \(id)") }
        return cart
    }

    /// The order with client reference `ref`; throws ``OrderError/notFound(_:)``.
    public func cart(ref: String) throws -> Cart {
        guard let cart = try store.cart(ref: ref) else { throw OrderError.notFound("with ref '\(ref)'") }
        return cart
    }

    /// A page of orders, newest first; throws ``OrderError/validation(field:allowed:message:)`` for a bad limit.
    public func list(_ query: OrderQuery) throws -> OrderPage {
        _ = try OrderQuery.checkedLimit(Int64(query.limit))
        return try store.list(query)
    }

    /// How many orders are in each status.
    public func countsByStatus() throws -> [OrderStatus: Int] { try store.countsByStatus() }
}
