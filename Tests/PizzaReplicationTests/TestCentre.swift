import PizzaCore
import PizzaReplication
import PizzaStorage
import PizzaWire

/// A centre in process, for the shipper's own logic: it keeps each shop's entries by sequence number as
/// `pizzad_ingest` does (a batch after a gap is answered with a rewind, a copy of what it holds is ignored, an
/// entry whose hash differs from the one it holds is `diverged`), and it can be told to fail. The shipper against
/// a real PostgreSQL is tested in PizzaDaemonTests (ReplicationTests, ChainTests).
final class TestCentre: CentralClient {
    struct State {
        /// The hashes held, by sequence number.
        var hashes: [Int64: String] = [:]
        /// Each entry as often as it was stored (a copy counts twice).
        var stored: [Int64: Int] = [:]
        var connections = 0
        var batches = 0
        /// The next `connect`s that fail, and how.
        var refuseConnections: [ReplicationError] = []
        /// The next `ingest`s that fail, and how.
        var refuseBatches: [ReplicationError] = []
        /// The next batch is answered as if the centre had lost everything after this sequence number.
        var forgetAfter: Int64?
        /// The next batch is answered with this cursor, whatever it holds (a centre pizzad does not understand).
        var answerCursor: Int64?
        /// The next batches are answered this much later (a centre queueing them).
        var answerDelays: [Duration] = []
        /// When each batch arrived, and how many entries it held.
        var arrivals: [(at: ContinuousClock.Instant, entries: Int)] = []
    }

    let state = Locked(State())

    var cursor: Int64 {
        state.withLock { state in
            var seq: Int64 = 0
            while state.hashes[seq + 1] != nil { seq += 1 }
            return seq
        }
    }

    func connect() async throws -> any CentralSession {
        try state.withLock { state in
            state.connections += 1
            if !state.refuseConnections.isEmpty { throw state.refuseConnections.removeFirst() }
        }
        return Session(centre: self)
    }

    struct Session: CentralSession {
        let centre: TestCentre

        func prepareSchema(_ migrations: [Migration]) async throws -> Int { migrations.last?.version ?? 0 }

        func ingest(shop: String, key: String, batch: ShippingBatch, schema: Int) async throws -> CentralCursor {
            let delay = centre.state.withLock { state -> Duration? in
                state.arrivals.append((.now, batch.count))
                return state.answerDelays.isEmpty ? nil : state.answerDelays.removeFirst()
            }
            if let delay { try await Task.sleep(for: delay) }
            return try centre.ingest(batch)
        }

        func cursor(shop: String, key: String) async throws -> CentralCursor {
            let cursor = centre.cursor
            return CentralCursor(cursor: cursor, hash: centre.state.value.hashes[cursor], events: cursor)
        }

        func ping() async throws {}
        func close() async {}
    }

    private func ingest(_ batch: ShippingBatch) throws -> CentralCursor {
        let entries = try Self.entries(of: batch)
        return try state.withLock { state in
            state.batches += 1
            if !state.refuseBatches.isEmpty { throw state.refuseBatches.removeFirst() }
            if let forget = state.forgetAfter {
                state.forgetAfter = nil
                state.hashes = state.hashes.filter { $0.key <= forget }
            }
            if let cursor = state.answerCursor {
                state.answerCursor = nil
                return CentralCursor(cursor: cursor)
            }
            var cursor: Int64 = 0
            while state.hashes[cursor + 1] != nil { cursor += 1 }
            if batch.first > cursor + 1 { return CentralCursor(cursor: cursor, rewind: true) }
            for (seq, hash) in entries {
                if let held = state.hashes[seq] {
                    guard held == hash else {
                        throw ReplicationError.diverged(detail: "entry \(seq) has another hash centrally")
                    }
                    continue
                }
                state.hashes[seq] = hash
                state.stored[seq, default: 0] += 1
            }
            cursor = batch.last?.seq ?? cursor
            return CentralCursor(cursor: cursor, hash: state.hashes[cursor])
        }
    }

    /// The batch's `(seq, hash)` pairs, read back from the JSON the centre would get.
    static func entries(of batch: ShippingBatch) throws -> [(Int64, String)] {
        guard case .array(let items) = try JSONParser.parse(batch.text) else { return [] }
        return items.compactMap { item in
            guard let seq = item["seq"]?.intValue, let hash = item["hash"]?.stringValue else { return nil }
            return (seq, hash)
        }
    }
}
