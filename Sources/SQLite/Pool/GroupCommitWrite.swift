/// A write waiting for a ``GroupCommitWriter``'s next group commit, as one object: it runs in the transaction, then
/// hears whether that transaction committed. All three calls come on the writer's queue, one at a time.
///
/// One object a write, where closures for its body, its resume and its failure were an allocation each.
public protocol GroupCommitWrite<Transaction>: AnyObject, Sendable {
    /// The writer's handle (``GroupCommitRules/Transaction``).
    associatedtype Transaction

    /// Writes in the open transaction. It may run more than once (see ``GroupCommitWriter``): only the last run
    /// counts, so a run keeps what it made for ``committed()`` and replaces what an earlier run kept.
    func run(in transaction: Transaction) throws
    /// The transaction of the last run is durable.
    func committed()
    /// The write failed (`error`: what the owner's rules call it); nothing of it was kept.
    func failed(_ error: any Error)
}

/// A write given as closures (``GroupCommitWriter/submit(_:fail:)``).
final class ClosureWrite<Transaction>: GroupCommitWrite {
    private let body: @Sendable (Transaction) throws -> @Sendable () -> Void
    private let fail: @Sendable (any Error) -> Void
    /// How to resume the caller, from the last run; only on the writer's queue.
    private nonisolated(unsafe) var resume: (@Sendable () -> Void)?

    init(
        run: @escaping @Sendable (Transaction) throws -> @Sendable () -> Void,
        fail: @escaping @Sendable (any Error) -> Void
    ) {
        self.body = run
        self.fail = fail
    }

    func run(in transaction: Transaction) throws { resume = try body(transaction) }
    func committed() { resume?() }
    func failed(_ error: any Error) { fail(error) }
}
