import Locking

/// Read connections, each lent to one caller at a time, so reads never wait on the writer (WAL).
/// See GRDB's `DatabasePool` for the shape; this one is only the readers.
public final class ReaderPool: Sendable {
    private struct State {
        var idle: [Database] = []
        var open: @Sendable () throws -> Database
        /// Bumped by ``reopen(with:)``: a connection of an older generation is closed when it comes back.
        var generation = 0
    }

    private let state: Locked<State>
    private let keep: Int

    /// A pool that opens connections with `open` and keeps at most `keep` idle ones.
    public init(keep: Int, open: @escaping @Sendable () throws -> Database) {
        self.keep = keep
        self.state = Locked(State(open: open))
    }

    /// Runs `body` with a connection of its own, in one read transaction: whatever it reads (an order's row,
    /// its items and its history) belongs to the same commit.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        let (reused, open, generation) = state.withLock { ($0.idle.popLast(), $0.open, $0.generation) }
        let db = try reused ?? open()
        defer {
            if !db.isInTransaction {
                state.withLock { state in
                    if state.generation == generation, state.idle.count < keep { state.idle.append(db) }
                }
            }
        }
        return try db.readTransaction { try body(db) }
    }

    /// From now on opens connections with `open`; the connections opened before are closed as they come back.
    public func reopen(with open: @escaping @Sendable () throws -> Database) {
        state.withLock { state in
            state.open = open
            state.generation += 1
            state.idle.removeAll()
        }
    }

    /// Closes the idle connections.
    public func close() { state.withLock { $0.idle.removeAll() } }
}
