import PizzaCore
import SQLite

/// Read-only connections, each lent to one caller at a time, so reads never wait on the writer (WAL).
final class ReadPool: Sendable {
    private let idle = Locked<[Database]>([])
    private let open: @Sendable () throws -> Database
    private let keep: Int

    /// A pool that opens connections with `open` and keeps at most `keep` idle ones.
    init(keep: Int, open: @escaping @Sendable () throws -> Database) {
        self.keep = keep
        self.open = open
    }

    /// Runs `body` with a connection of its own.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let db = try idle.withLock { $0.popLast() } ?? open()
        defer {
            if !db.isInTransaction {
                idle.withLock { idle in if idle.count < keep { idle.append(db) } }
            }
        }
        return try body(db)
    }

    /// Closes the idle connections.
    func close() { idle.withLock { $0.removeAll() } }
}
