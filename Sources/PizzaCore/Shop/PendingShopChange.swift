/// A change that belongs to no order on its way through the store's writer (``PendingChange``'s counterpart for
/// ``ShopChange``): `make` computes the record in the transaction, the writers (audit, and whoever keeps the
/// shop's tables) write it there, and after the commit the delegates hear of it and the caller gets the outcome.
///
/// Only the store's writer touches ``outcome`` after the repository submitted it, one call at a time.
public final class PendingShopChange<Store: OrderStore>: Sendable {
    /// Computes the record from what the transaction sees: its sequence number, when, and the transaction.
    public typealias Make =
        @Sendable (_ transaction: Store.Transaction, _ sequence: () throws -> Int64, _ at: Timestamp)
        throws -> ShopChangeRecord

    let repository: OrderRepository<Store>
    let kind: ShopChange.Kind
    let actor: ChangeActor
    let make: Make
    let completion: @Sendable (Result<ShopChangeOutcome, any Error>) -> Void
    /// What the last run made (a change may run more than once: only the last run counts).
    nonisolated(unsafe) var outcome: ShopChangeOutcome?

    init(
        _ repository: OrderRepository<Store>, _ kind: ShopChange.Kind, by actor: ChangeActor, make: @escaping Make,
        completion: @escaping @Sendable (Result<ShopChangeOutcome, any Error>) -> Void
    ) {
        self.repository = repository
        self.kind = kind
        self.actor = actor
        self.make = make
        self.completion = completion
    }

    /// Computes the change as `transaction` sees it and has the writers write it there; throws to refuse it.
    public func run(in transaction: Store.Transaction) throws {
        outcome = nil
        let now = repository.clock()
        var taken: Int64?
        let sequence = {
            if let taken { return taken }
            let next = try transaction.nextSequence()
            taken = next
            return next
        }
        switch try make(transaction, sequence, now) {
        case .unchanged(let text):
            outcome = ShopChangeOutcome(change: nil, text: text)
        case .record(let text, let before, let reason):
            let change = ShopChange(
                sequence: try sequence(), kind: kind, at: now, actor: actor, text: text, beforeText: before,
                reason: reason)
            try repository.writers.invoke { try $0.repository(willCommit: change, in: transaction) }
            outcome = ShopChangeOutcome(change: change, text: text)
        }
    }

    /// The transaction the last run was in is durable: tells the delegates, then the caller.
    public func committed() {
        guard let outcome else { preconditionFailure("a shop change was committed without a run") }
        if let change = outcome.change { repository.delegates.invoke { $0.repository(didCommit: change) } }
        completion(.success(outcome))
    }

    /// Refused, or the storage failed: nothing of it was kept.
    public func failed(_ error: any Error) {
        outcome = nil
        completion(.failure(error))
    }
}

extension OrderRepository {
    /// Makes a change that belongs to no order (an item's availability, a Z report) through the store's writer:
    /// `make` computes its record in the write transaction, the writers write it with its audit entry, and this
    /// returns once it is durable (the delegates told).
    public func record(
        _ kind: ShopChange.Kind, by actor: ChangeActor, _ make: @escaping PendingShopChange<Store>.Make
    ) async throws -> ShopChangeOutcome {
        try await withCheckedThrowingContinuation { continuation in
            store.submit(PendingShopChange(self, kind, by: actor, make: make) { continuation.resume(with: $0) })
        }
    }
}
