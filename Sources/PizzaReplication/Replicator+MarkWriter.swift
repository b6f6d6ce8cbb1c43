import PizzaStorage

extension Replicator {
    /// Records the shipped mark in SQLite without holding up the next batch, at most every ``interval`` while
    /// batches keep coming, and at once when the shipper catches up, stops or fails. The mark is only where a
    /// restart begins: one that lags re-ships a few batches, which the centre ignores; it is never ahead of
    /// what PostgreSQL committed.
    struct MarkWriter {
        static let interval: Duration = .milliseconds(250)
        let store: SQLiteOrderStore
        private(set) var recorded: Int64
        private var latest: (seq: Int64, hash: String)?
        private var writing: Task<Result<Void, any Error>, Never>?
        private var lastWrite = ContinuousClock.now - Self.interval

        init(store: SQLiteOrderStore, recorded: Int64) {
            self.store = store
            self.recorded = recorded
        }

        mutating func shipped(seq: Int64, hash: String) async throws {
            latest = (seq, hash)
            if ContinuousClock.now - lastWrite >= Self.interval { try await write(waiting: false) }
        }

        /// Writes the latest mark and waits for it.
        mutating func flush() async throws { try await write(waiting: true) }

        private mutating func write(waiting: Bool) async throws {
            // One write at a time: the one before must be done (and have worked) before the next is queued.
            if let writing {
                self.writing = nil
                try await writing.value.get()
            }
            if let latest, latest.seq > recorded {
                let store = store
                let task = Task { () -> Result<Void, any Error> in
                    do {
                        try await store.recordShipped(seq: latest.seq, hash: latest.hash)
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
                recorded = latest.seq
                lastWrite = .now
                if waiting { try await task.value.get() } else { writing = task }
            }
        }
    }
}
