import Foundation
import PizzaCore
import SQLite

/// The storage's rules for the group commit (``GroupCommitRules``): the write handle (``WriteTransaction``) and
/// the numbers it carries from one commit into the next, which failures are storage failures and how they are
/// named, when the file may not be written at all, and the wait for another program's checkpoint.
/// Its state is touched on the writer's queue, except the flags read by health checks (locked).
final class OrderWriteRules: GroupCommitRules {
    let path: String
    let checkpoints: SQLiteOrderStore.CheckpointPolicy
    /// Whether the file could not be written when it was opened (and not since): changes are refused at once.
    let readOnly: Locked<Bool>
    private let storageFailure = Locked<StorageError?>(nil)
    let groupCommitObserver = Locked<(@Sendable (_ changes: Int, _ duration: Duration) -> Void)?>(nil)
    /// The database file's device and inode when it was opened: a write to a file that was since removed or
    /// replaced would be acknowledged and then lost, so writes stop when the path no longer names it.
    private let fileIdentity: (device: UInt64, inode: UInt64)?
    /// The numbers the last group commit left off at (see ``TransactionNumbers``), carried into the next one so that
    /// it asks no table for them, with the writer's `PRAGMA data_version` then: when another connection has
    /// committed since (someone's `sqlite3`), the next one reads them afresh. Nil after anything else that may
    /// have written those tables (a failure, a rollback, a maintenance block). Only on the writer's queue.
    nonisolated(unsafe) var carriedNumbers: (numbers: TransactionNumbers, dataVersion: Int64)?
    private let walIndex: WALIndex
    /// The WAL's length at which the writer waits again after a wait nobody answered. Only on the writer's queue.
    private nonisolated(unsafe) var nextExternalWait = 0

    init(path: String, checkpoints: SQLiteOrderStore.CheckpointPolicy, readOnly: Bool) {
        self.path = path
        self.checkpoints = checkpoints
        self.readOnly = Locked(readOnly)
        self.fileIdentity = Self.identity(of: path)
        self.walIndex = WALIndex(path: path + "-shm")
    }

    // MARK: GroupCommitRules

    func prepareBatch(_ db: Database) -> (any Error)? {
        // Not recorded as the last failure: `currentStorageFailure` reports read-only from the flag itself.
        if readOnly.value { return StorageError.readOnly(path: path) }
        guard fileIsStillThere() else { return failure(StorageError.vanished(path: path)) }
        waitForExternalCheckpoint(db)
        return nil
    }

    func begin(_ db: Database) throws -> WriteTransaction {
        // Counted on from the last commit only while nothing else wrote since; else read afresh.
        let dataVersion = try db.dataVersion()
        var numbers = TransactionNumbers()
        if let carried = carriedNumbers, carried.dataVersion == dataVersion { numbers = carried.numbers }
        carriedNumbers = nil
        return WriteTransaction(db: db, numbers: numbers, dataVersion: dataVersion)
    }

    func mark(_ transaction: WriteTransaction) -> TransactionNumbers.Next { transaction.numbers.mark }

    func rewind(_ transaction: WriteTransaction, to mark: TransactionNumbers.Next) {
        transaction.numbers.rewind(to: mark)
    }

    func committed(_ transaction: WriteTransaction, writes: Int, failedAlone: Bool, duration: Duration) {
        if !failedAlone { carriedNumbers = (transaction.numbers, transaction.dataVersion) }
        // Only a commit that wrote something proves the storage works again: a batch whose every change failed
        // commits an empty transaction, which succeeds even on a read-only or full disk.
        guard writes > 0 else { return }
        clearStorageFailure()
        groupCommitObserver.value?(writes, duration)
    }

    func failure(_ error: any Error) -> any Error {
        if let failure = error as? StorageError {
            storageFailure.withLock { $0 = failure }
            return failure
        }
        guard let sqlite = error as? SQLiteError, sqlite.isStorageFailure else { return error }
        if sqlite.code == .readonly {
            // The file (or its mapping) cannot be written: refuse changes at once, as for a file opened read-only,
            // and let the health check reopen it when it can be written again.
            readOnly.withLock { $0 = true }
            return StorageError.readOnly(path: path)
        }
        let failure = StorageError.unavailable(sqlite)
        storageFailure.withLock { $0 = failure }
        return failure
    }

    // MARK: Failures

    func clearStorageFailure() { storageFailure.withLock { $0 = nil } }

    /// The last storage failure, until a commit succeeds again.
    var currentStorageFailure: StorageError? {
        if readOnly.value { return .readOnly(path: path) }
        return storageFailure.withLock { $0 }
    }

    static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Whether the path still names the file the writer has open.
    private func fileIsStillThere() -> Bool {
        guard let fileIdentity, let now = Self.identity(of: path) else { return false }
        return now == fileIdentity
    }

    // MARK: Checkpoints left to another program

    /// With checkpoints left to another program, the writer keeps the WAL from outgrowing
    /// ``externalWALLimitFrames``: past it, it waits before its next transaction (holding no lock) until that
    /// program has copied the whole WAL back, so that this transaction starts the WAL over. A checkpointer that
    /// works inside a write transaction of its own (Litestream 0.5 seals the WAL so) gets the write lock at once,
    /// where under steady load it would find one group commit after another and the WAL would grow by a quarter of
    /// a gigabyte a second. When nothing copies it back within ``externalCheckpointPatience``, the writer checkpoints
    /// itself (the other program is not running: the WAL stays bounded) and goes on (it is busy: the writer waits
    /// again only once the WAL has grown by the limit once more), so the kitchen is never stopped for long.
    static let externalWALLimitFrames = 12_288
    static let externalCheckpointPatience: Duration = .seconds(2)

    /// Only on the writer's queue, before a group commit.
    private func waitForExternalCheckpoint(_ writer: Database) {
        guard checkpoints == .external, let now = walIndex.read() else { return }
        if now.frames < Self.externalWALLimitFrames { nextExternalWait = 0 }
        guard now.frames >= max(Self.externalWALLimitFrames, nextExternalWait), now.backfilled < now.frames else {
            return
        }
        let deadline = ContinuousClock.now + Self.externalCheckpointPatience
        while ContinuousClock.now < deadline {
            usleep(1_000)
            guard let index = walIndex.read(), index.frames >= Self.externalWALLimitFrames,
                index.backfilled < index.frames
            else { return }
        }
        // Nothing copied the WAL back in time. With nobody reading it, pizzad's own checkpoint copies all of it
        // and this commit starts it over. A reader that still holds it (the other program, busy) gets no second
        // wait until the WAL has grown by the limit again: the kitchen waits at most once per 48 MiB.
        _ = try? writer.checkpoint(truncate: false)
        if let index = walIndex.read(), index.backfilled < index.frames {
            nextExternalWait = index.frames + Self.externalWALLimitFrames
        }
    }
}
