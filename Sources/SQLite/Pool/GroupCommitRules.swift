/// What a ``GroupCommitWriter`` asks of the code that owns the rows: the handle its writes get, what a write took
/// from it (to give back when the write fails alone), which errors mean the storage failed, and what to do
/// before a batch and after a commit. Called only on the writer's queue.
public protocol GroupCommitRules: AnyObject, Sendable {
    /// The write handle: what a write body gets to read and write through, inside the open transaction.
    associatedtype Transaction
    /// Where a transaction's own bookkeeping stood before a write (numbers handed out), to rewind to.
    associatedtype Mark

    /// Before each batch, outside any transaction: waits for what must be waited for, then gives the error every
    /// write of the batch fails with without a transaction (the file cannot be written, or is gone), or nil.
    func prepareBatch(_ db: Database) -> (any Error)?
    /// Inside `BEGIN IMMEDIATE`, before the first write: the handle this transaction's writes get.
    func begin(_ db: Database) throws -> Transaction
    /// Where `transaction`'s bookkeeping stands before a write.
    func mark(_ transaction: Transaction) -> Mark
    /// Gives back what the writes since `mark` took: the write failed alone and its rows are gone.
    func rewind(_ transaction: Transaction, to mark: Mark)
    /// The transaction committed, with `writes` writes in it (none when every one failed); `failedAlone` when one
    /// failed and was rewound; `duration` from `BEGIN` to the durable `COMMIT`. Before any caller resumes.
    func committed(_ transaction: Transaction, writes: Int, failedAlone: Bool, duration: Duration)
    /// What a caller is told for `error`: the owner's name for a storage failure (and its bookkeeping of it), or
    /// the error itself.
    func failure(_ error: any Error) -> any Error
}
