import Dispatch
import Locking

/// The one connection that writes, on a serial queue of its own, with group commit: writes that arrive while a
/// commit is in flight wait and go together into the next transaction, so one `fsync` makes many durable.
/// See GRDB's `SerializedDatabase` for the shape; this one adds the group commit.
///
/// Every caller is resumed only after `COMMIT` returned, so with `synchronous=FULL` nothing is acknowledged before
/// it is durable. One failing write fails alone (see `commit(_:)`). The owner's ``GroupCommitRules`` give the
/// write handle, the bookkeeping to rewind and the names of storage failures.
public final class GroupCommitWriter<Rules: GroupCommitRules>: Sendable {
    private struct Pending {
        var writes: [any GroupCommitWrite<Rules.Transaction>] = []
        var draining = false
    }

    private let rules: Rules
    private let queue: DispatchQueue
    private let pending = Locked(Pending())
    /// `nonisolated(unsafe)`: read and replaced only on the serial `queue`, never anywhere else after `init`.
    private nonisolated(unsafe) var connection: Database
    /// The batch committed last, kept until the next one commits, so that what its writes made on the writer's
    /// thread (an order's outcome and cart) is mostly freed there and not on the event loop that took the answer:
    /// memory freed on another thread is cold in that core's cache and goes back to its own malloc arena, under
    /// the arena's lock, once that thread's small cache is full. Freed on the loops, it cost them about a seventh of
    /// their user time (PERFORMANCE.md, "The writer frees what it made"). Let go when the queue runs dry: a write's
    /// objects (pizzad's `PendingChange` holds its repository, which holds the store and this writer) never outlive
    /// the writes in flight. `nonisolated(unsafe)` as `connection`.
    private nonisolated(unsafe) var retired: [any GroupCommitWrite<Rules.Transaction>] = []

    /// A writer on `connection`, which it owns from now on.
    public init(connection: Database, rules: Rules, label: String) {
        self.connection = connection
        self.rules = rules
        self.queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Queues `write` for the next group commit: it runs in the transaction, then hears that it committed or
    /// failed, all on the writer's queue.
    public func submit(_ write: any GroupCommitWrite<Rules.Transaction>) {
        let startDrain = pending.withLock { pending in
            pending.writes.append(write)
            if pending.draining { return false }
            pending.draining = true
            return true
        }
        if startDrain { queue.async { self.drain() } }
    }

    /// Queues a write given as closures: `run` gets the transaction's handle and returns how to resume its caller
    /// after the commit; `fail` resumes it with the error instead. Both run on the writer's queue.
    public func submit(
        _ run: @escaping @Sendable (Rules.Transaction) throws -> @Sendable () -> Void,
        fail: @escaping @Sendable (any Error) -> Void
    ) {
        submit(ClosureWrite(run: run, fail: fail))
    }

    /// Runs `body` on the connection between group commits; it may replace the connection (`inout`).
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (inout Database) throws -> T) async throws
        -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(&self.connection) }) }
        }
    }

    /// Runs batches until no write is waiting. Only on `queue`.
    private func drain() {
        while true {
            let batch = pending.withLock { pending in
                let batch = pending.writes
                pending.writes.removeAll(keepingCapacity: true)
                if batch.isEmpty { pending.draining = false }
                return batch
            }
            if batch.isEmpty {
                retired = []
                return
            }
            if let refusal = rules.prepareBatch(connection) {
                batch.forEach { $0.failed(refusal) }
                continue
            }
            commit(batch)
            retired = batch
        }
    }

    /// One group commit: a transaction (`BEGIN IMMEDIATE`), the writes one after another, `COMMIT`, then resume
    /// every caller in commit order. A write that fails fails alone; a failure that made SQLite roll back the whole
    /// transaction (a full disk, an I/O error) takes the writes before it along, and the writes after it go into a
    /// new transaction.
    ///
    /// A write runs without a savepoint of its own at first: a savepoint copies every page the write touches into
    /// the statement journal, for a rollback that almost never comes (a change that is refused is refused before
    /// it writes a row). A write that fails having changed no row (``Database/totalChanges`` did not move: SQLite
    /// undoes a failed statement itself) left nothing behind, so it fails alone and the transaction goes on. Only
    /// a write that fails after it changed rows needs undoing: then the whole transaction is rolled back and the
    /// same writes run again, each in its own savepoint, so that one fails alone as before; a write that failed
    /// alone before it is not run again (its caller was told, and hears once). Write bodies change
    /// the database only through `INSERT`, `UPDATE` and `DELETE`, and keep nothing outside it, so running one
    /// again is the same as running it once. Only on `queue`.
    private func commit(_ batch: [any GroupCommitWrite<Rules.Transaction>]) {
        let db = connection
        var remaining = batch[...]
        // After a write failed having changed rows: each write of this batch in its own savepoint.
        var careful = false
        while !remaining.isEmpty {
            let started = ContinuousClock.now
            var transaction: Rules.Transaction?
            var done: [any GroupCommitWrite<Rules.Transaction>] = []
            done.reserveCapacity(remaining.count)
            var failedAlone = false
            do {
                try db.transaction {
                    let handle = try rules.begin(db)
                    transaction = handle
                    // By index, not `popFirst()`: this class is generic and not specialized where it is used, and
                    // `Collection`'s `popFirst` there costs two allocations a write (its `first` and a read accessor).
                    while !remaining.isEmpty {
                        let write = remaining[remaining.startIndex]
                        remaining = remaining[(remaining.startIndex + 1)..<remaining.endIndex]
                        let mark = rules.mark(handle)
                        let changesBefore = db.totalChanges
                        do {
                            if careful {
                                try db.savepoint { try write.run(in: handle) }
                            } else {
                                try write.run(in: handle)
                            }
                            done.append(write)
                        } catch {
                            if !careful, db.isInTransaction, db.totalChanges != changesBefore {
                                throw RunAgainWithSavepoints(from: write)
                            }
                            rules.rewind(handle, to: mark)
                            failedAlone = true
                            let failure = rules.failure(error)
                            write.failed(failure)
                            // No transaction left: the writes before this one are gone with it.
                            if !db.isInTransaction { throw failure }
                        }
                    }
                }
            } catch let again as RunAgainWithSavepoints {
                // The same writes again, but those that failed alone: they were told, and run once.
                remaining = ArraySlice(done + [again.write] + remaining)
                careful = true
                continue
            } catch {
                let failure = rules.failure(error)
                guard transaction != nil else {
                    remaining.forEach { $0.failed(failure) }
                    return
                }
                done.forEach { $0.failed(failure) }
                continue
            }
            if let transaction {
                rules.committed(
                    transaction, writes: done.count, failedAlone: failedAlone, duration: ContinuousClock.now - started)
            }
            // By index, as above: `forEach` here goes through `Collection`'s read accessor, an allocation a write.
            var index = 0
            while index < done.count {
                done[index].committed()
                index += 1
            }
        }
    }

    /// Thrown out of a group commit's transaction (which rolls it back) when `write` failed after it changed rows.
    private struct RunAgainWithSavepoints: Error {
        let write: any GroupCommitWrite<Rules.Transaction>
        init(from write: any GroupCommitWrite<Rules.Transaction>) { self.write = write }
    }
}
