/// A write waiting for the next group commit.
final class PendingWrite: Sendable {
    /// Runs the body in the open transaction; returns how to resume the caller once the transaction committed,
    /// or throws the body's error. It may run more than once (see `SQLiteOrderStore.commit(_:)`), and only the last
    /// run's resume is called.
    let run: @Sendable (WriteTransaction) throws -> @Sendable () -> Void
    /// Resumes the caller with a failure.
    let fail: @Sendable (any Error) -> Void

    init(
        run: @escaping @Sendable (WriteTransaction) throws -> @Sendable () -> Void,
        fail: @escaping @Sendable (any Error) -> Void
    ) {
        self.run = run
        self.fail = fail
    }
}
