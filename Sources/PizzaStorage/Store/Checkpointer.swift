import Dispatch
import PizzaCore
import SQLite

/// Copies the WAL back into the database file on a connection and a thread of its own, so the writer does not
/// do the bulk of it inside a `COMMIT`.
///
/// SQLite's automatic checkpoint runs in the commit that takes the WAL past 1000 frames: that commit, and every
/// change waiting behind it for the next group commit, waits for a few megabytes to be written into the database
/// file and synced. Here the writer's WAL hook reports the WAL's length after each commit, and past
/// ``threshold`` frames this checkpointer runs a `PASSIVE` checkpoint beside the writer (it takes the checkpointer
/// lock, not the write lock, so commits go on meanwhile).
///
/// The WAL only starts over when a write transaction begins with all of it copied back, which a checkpoint
/// running beside a busy writer never quite achieves: frames keep arriving. So once the background checkpoint
/// is done (going round again while much arrived during a pass: ``leftForTheWriter``), the writer's next commit
/// finishes the job itself, copying just the frames that came in meanwhile, and the transaction after it starts
/// the WAL over. The WAL stays near ``threshold`` frames. See <https://www.sqlite.org/wal.html#automatic_checkpoint>.
final class Checkpointer: Sendable {
    /// WAL frames (4 MiB) after which a checkpoint starts, as SQLite's automatic checkpoint does. Each round ends
    /// with the writer's finishing pass, which syncs the database file between two commits: with 250 frames (one
    /// round every dozen group commits at 16 clients) that pass was 4-6% of the writer's time. At 1000, a third of
    /// that, and the background passes copy a page rewritten by many commits (an index's last leaf) once instead of
    /// four times. (250 was chosen when the checkpoint's sync stalled the writer's own WAL syncs, p99 4.2-5.0 ms
    /// against 5.6-5.7 at 1000 at 4,000 orders/s; now p99 stays at 2.4-2.6 ms at 14,000 orders/s.)
    static let threshold = 1000

    private let queue = DispatchQueue(label: "pizzad.checkpointer", qos: .utility)
    private let state: Locked<State>

    private struct State {
        var open: @Sendable () throws -> Database
        /// Only used on `queue`; opened at the first checkpoint, dropped by ``reopen(with:)``.
        var connection: Database?
        var scheduled = false
        /// A background checkpoint finished; the writer's next commit past the threshold finishes the job.
        var finished = false
        /// The WAL's length when the last checkpoint was scheduled; a shorter WAL means it started over.
        var scheduledAt = 0
        /// The WAL's length after the writer's last commit.
        var lastFrames = 0
        var closed = false
    }

    init(open: @escaping @Sendable () throws -> Database) {
        state = Locked(State(open: open))
    }

    /// Called by the writer's WAL hook after each commit with the WAL's length in frames; returns whether the
    /// writer should checkpoint now (the short finishing pass after a background checkpoint). Schedules one
    /// background checkpoint at a time, and another only once the WAL has grown by ``threshold`` frames more
    /// (or started over), so a reader that holds the WAL back is not answered with a checkpoint per commit.
    func walCommitted(frames: Int) -> Bool {
        enum Action { case nothing, finish, schedule }
        let action: Action = state.withLock { state in
            if frames < state.lastFrames {
                // The WAL started over (after the finishing pass, or a checkpoint of the health service's).
                state.finished = false
                state.scheduledAt = 0
            }
            state.lastFrames = frames
            if state.closed || frames < Self.threshold { return .nothing }
            if state.finished {
                state.finished = false
                return .finish
            }
            if state.scheduled { return .nothing }
            if frames >= state.scheduledAt, frames < state.scheduledAt + Self.threshold { return .nothing }
            state.scheduled = true
            state.scheduledAt = frames
            return .schedule
        }
        switch action {
        case .nothing: return false
        case .finish: return true
        case .schedule:
            queue.async {
                self.runBackgroundPasses()
                self.state.withLock { state in
                    state.scheduled = false
                    state.finished = true
                }
            }
            return false
        }
    }

    /// What a background checkpoint leaves for the writer's finishing pass, at most (unless a reader holds the WAL
    /// back): about two group commits of 16 orders. Under load a pass takes a few milliseconds, and the commits made
    /// meanwhile added as many frames again as it copied; left to the writer, copying them held up the next commit
    /// (5% of the writer's time at 16 clients). So the checkpointer goes round again, at most
    /// ``backgroundPasses`` times, each pass copying what arrived during the last.
    static let leftForTheWriter = 48
    static let backgroundPasses = 4

    /// Only on `queue`.
    private func runBackgroundPasses() {
        var copied = -1
        for _ in 0..<Self.backgroundPasses {
            guard let (log, checkpointed) = try? runCheckpoint() else { return }
            // Caught up, or held back by a reader (no progress): the writer's pass does the rest, or nothing.
            if log - checkpointed <= Self.leftForTheWriter || checkpointed == copied { return }
            copied = checkpointed
        }
    }

    /// A passive checkpoint now, on the checkpointer's thread: the WAL's length and how much of it is in the
    /// database file afterwards (less when a reader still needs the rest).
    func checkpoint() async throws -> (log: Int, checkpointed: Int) {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.runCheckpoint() }) }
        }
    }

    /// Only on `queue`.
    private func runCheckpoint() throws -> (log: Int, checkpointed: Int) {
        let (existing, open, closed) = state.withLock { ($0.connection, $0.open, $0.closed) }
        if closed { return (0, 0) }
        let db = try existing ?? open()
        if existing == nil { state.withLock { $0.connection = db } }
        return try db.checkpoint(truncate: false)
    }

    /// From now on checkpoints on connections made by `open` (after the store was reopened for writing).
    func reopen(with open: @escaping @Sendable () throws -> Database) {
        queue.sync {
            state.withLock { state in
                state.open = open
                state.connection = nil
                state.scheduledAt = 0
            }
        }
    }

    /// Waits for a running checkpoint, then closes the connection; later requests do nothing.
    func close() {
        queue.sync {
            state.withLock { state in
                state.closed = true
                state.connection = nil
            }
        }
    }
}
