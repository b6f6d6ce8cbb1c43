/// One change on its way through the store's writer, as one object: what it asks for, who asked, what its run in
/// the transaction made of it, and whom to tell. The store runs it in a write transaction (``run(in:)``), then
/// says it committed (``committed()``) or failed (``failed(_:)``), on its writer.
///
/// One object where a change used to be a chain of closures (the body, the after-commit step, the completion and
/// the store's wrappers around them), each its own heap allocation for every order.
///
/// Only the store's writer touches ``outcome`` and the retry flag after ``OrderRepository`` submitted it, one
/// call at a time; that is what makes the `nonisolated(unsafe)` state safe.
public final class PendingChange<Store: OrderStore>: Sendable {
    /// What the change does to the order, given the transaction.
    @usableFromInline enum Work: Sendable {
        /// A new order (`order.create`).
        case create(NewOrder)
        /// An existing order, changed by `mutate`.
        case modify(
            id: Int64, kind: OrderChange.Kind, reason: String?,
            mutate: @Sendable (inout Cart, Store.Transaction, Timestamp) throws -> Void)
    }

    @usableFromInline let repository: OrderRepository<Store>
    @usableFromInline let operation: OrderOperation
    @usableFromInline let work: Work
    @usableFromInline let actor: ChangeActor
    @usableFromInline let key: RequestKey?
    @usableFromInline let completion: @Sendable (Result<OrderOutcome, any Error>) -> Void
    @usableFromInline let started = ContinuousClock.now
    /// What the last run made (a change may run more than once: only the last run counts).
    @usableFromInline nonisolated(unsafe) var outcome: OrderOutcome?
    /// A create whose ref was taken runs again, once, looking the ref up (``RefInUse``).
    @usableFromInline nonisolated(unsafe) var lookUp = false

    @inlinable
    init(
        _ repository: OrderRepository<Store>, _ operation: OrderOperation, _ work: Work, by actor: ChangeActor,
        key: RequestKey?, completion: @escaping @Sendable (Result<OrderOutcome, any Error>) -> Void
    ) {
        self.repository = repository
        self.operation = operation
        self.work = work
        self.actor = actor
        self.key = key
        self.completion = completion
    }

    /// Computes the change from the order as `transaction` sees it and has the writers (persistence, audit)
    /// write it there. Throws to refuse it; nothing it wrote stays then.
    @inlinable
    public func run(in transaction: Store.Transaction) throws {
        outcome = nil
        let (cart, change) = try made(in: transaction)
        if let change {
            try repository.writers.invoke { try $0.repository(willCommit: change, in: transaction) }
            // The text the audit entry was written with (made once), for this order's next change's `before`.
            if let text = change.afterText.known { repository.recentTexts.keep(change.after, text: text) }
        }
        outcome = OrderOutcome(cart: cart, change: change)
    }

    /// The transaction the last run was in is durable: tells the subscribers, in commit order, then the caller.
    @inlinable
    public func committed() {
        guard let outcome else { preconditionFailure("a change was committed without a run") }
        if let change = outcome.change {
            // A retry of a recent ref is answered with the order as this commit left it.
            repository.recentRefs.committed(outcome.cart, created: outcome.created)
            let latency = ContinuousClock.now - started
            repository.delegates.invoke { $0.repository(didCommit: change, latency: latency) }
        }
        completion(.success(outcome))
    }

    /// The change was refused or the storage failed: nothing of it was kept.
    @inlinable
    public func failed(_ error: any Error) {
        outcome = nil
        if error is RefInUse {
            // A taken ref is not a failure: the create runs again, looking it up.
            if case .create = work, !lookUp {
                lookUp = true
                return repository.store.submit(self)
            }
        } else {
            repository.delegates.invoke { $0.repository(didFail: operation, error: error) }
        }
        completion(.failure(error))
    }

    @inlinable
    func made(in tx: Store.Transaction) throws -> (Cart, OrderChange?) {
        let now: Timestamp
        switch work {
        case .create(let order):
            if lookUp, let ref = order.ref, let existing = try tx.cart(ref: ref) { return (existing, nil) }
            now = repository.clock()
            let id = try tx.nextCartID()
            let firstItemID = try tx.nextItemIDs(count: order.itemCount)
            let pizzas = order.pizzas
            let items = pizzas.indices.map { CartItem(id: firstItemID + Int64($0), pizza: pizzas[$0]) }
            // Room for the entry placing it too, so that placing does not copy the history.
            var history: [StatusChange] = []
            history.reserveCapacity(order.place ? 2 : 1)
            history.append(StatusChange(from: nil, to: .open, at: now, actor: actor))
            var cart = Cart(
                id: id, ref: order.ref, customer: order.customer, note: order.note, status: .open, items: items,
                currency: order.currency, createdAt: now, updatedAt: now, history: consume history)
            if !order.products.isEmpty {
                let first = firstItemID + Int64(pizzas.count)
                for (offset, product) in order.products.enumerated() {
                    try cart.add(product, itemID: first + Int64(offset), at: now)
                }
            }
            // Checked by the repository before the order reached the writer.
            if order.fulfilment != .pickup {
                cart.applyFulfilment(order.fulfilment, deliveryFee: order.deliveryFee, at: now)
            }
            if order.place { try cart.apply(.place, by: actor, at: now) }
            let change = OrderChange(
                sequence: try tx.nextSequence(), kind: .created, at: now, actor: actor, before: nil, after: cart,
                requestKey: key)
            return (cart, change)
        case .modify(let id, let kind, let reason, let mutate):
            guard let before = try tx.cart(id: id) else { throw OrderError.notFound("with id \(id)") }
            now = repository.clock()
            var after = before
            try mutate(&after, tx, now)
            // A change that found nothing to do (a payment's ref again): the order as it is, no change.
            if after.updatedAt == before.updatedAt, after == before { return (before, nil) }
            let change = OrderChange(
                sequence: try tx.nextSequence(), kind: kind, at: now, actor: actor, before: before, after: after,
                reason: reason, requestKey: key, beforeText: repository.recentTexts.text(of: before))
            return (after, change)
        }
    }
}
