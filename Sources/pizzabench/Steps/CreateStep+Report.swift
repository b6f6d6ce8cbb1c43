import Foundation
import PizzaTesting

extension CreateStep {
    /// The table of every round, the medians at 16 clients, and the ref replays.
    mutating func report(rows: [[String]], targetRoundsRun: [CreateRound]) throws {
        print(
            "order.create (two pizzas each, placed, each with a unique ref as a till sends), durable; ceiling = samework.c"
        )
        print("at batch = clients;")
        print(
            "bound = the same rows behind pizzad's architecture in C (socketwork.c: Unix sockets, two epoll loops, one")
        print(
            "group-commit writer, no savepoint per order, no parsing); PostgreSQL = pg-samework.sql through pgbench with"
        )
        print("as many clients (synchronous_commit=on); 16 clients: \(options.targetRounds) rounds of the four steps:")
        Bench.table(
            [
                "clients", "orders/s", "p50", "p99", "p999", "CPU µs/order", "ceiling/s", "ceiling µs/order",
                "× ceiling", "bound/s", "bound µs/order", "× bound", "PostgreSQL/s", "× PostgreSQL", "changes/commit",
                "commit ms", "peak RSS MiB",
            ], rows)
        print(
            "changes/commit and commit ms: pizzad's own pizzad_group_commit metrics over the run (BEGIN to durable COMMIT)"
        )
        if !targetRoundsRun.isEmpty {
            // The median; of an even count, the lower of the middle two.
            func median<T>(_ sorted: [T]) -> T { sorted[(sorted.count - 1) / 2] }
            /// The median and the range, as "m (lo–hi)".
            func spread(_ values: [Double]) -> String {
                let sorted = values.sorted()
                let middle = Bench.format(median(sorted), 2)
                return sorted.count == 1
                    ? middle : "\(middle) (\(Bench.format(sorted[0], 2))–\(Bench.format(sorted[sorted.count - 1], 2)))"
            }
            let ranked = targetRoundsRun.sorted { $0.timesCeiling < $1.timesCeiling }
            sixteen = (median(ranked).pizzad, median(ranked).ceiling)
            let postgres = targetRoundsRun.compactMap(\.timesPostgres)
            print(
                "16 clients, median of \(targetRoundsRun.count) rounds (lowest–highest): × ceiling "
                    + spread(targetRoundsRun.map(\.timesCeiling)) + ", × PostgreSQL "
                    + (postgres.isEmpty ? "-" : spread(postgres)) + ", × bound "
                    + spread(targetRoundsRun.map(\.timesBound)) + "; CPU per order × the bound's "
                    + spread(targetRoundsRun.map(\.cpuTimesBound))
            )
            let refRatios = targetRoundsRun.compactMap(\.refOverNone)
            if !refRatios.isEmpty {
                let plain = targetRoundsRun.compactMap(\.withoutRef).map { Bench.format($0.perSecond, 0) }
                print(
                    "16 clients, with ref × without ref (the same step without refs, back to back; without: "
                        + plain.joined(separator: ", ") + " orders/s): " + spread(refRatios) + "; the ceiling's own: "
                        + spread(targetRoundsRun.compactMap(\.ceilingRefOverNone)))
            }
            // The two throughput targets side by side: how far the two C programs get ahead of the peer in the same
            // rounds, and what 2.5× the peer asks of pizzad against the ceiling. Above 1, the peer target asks pizzad to
            // beat plain C with group commit.
            let ceilingOverPeer = targetRoundsRun.compactMap(\.ceilingTimesPostgres)
            if !ceilingOverPeer.isEmpty {
                print(
                    "16 clients, × PostgreSQL of the ceiling itself " + spread(ceilingOverPeer) + " and of the bound "
                        + spread(targetRoundsRun.compactMap(\.boundTimesPostgres))
                        + "; 2.5× PostgreSQL is this much of the ceiling: " + spread(ceilingOverPeer.map { 2.5 / $0 }))
            }
        }
        if options.clients.contains(16) {
            // A till's retry after a timeout: every 10th request repeats the ref of the order before it. It must answer
            // that order at once and write nothing: the daemon's own count of changes committed equals the creates.
            let directory = try run.folder("create-replay")
            let daemon = try PizzadProcess.bench(binary: run.pizzad, directory: directory)
            let replayed = try Load.create(daemon: daemon, clients: 16, seconds: seconds, refs: .fresh(replayEvery: 10))
            _ = try? daemon.stop()
            if let replays = replayed.replays {
                let written = replayed.groupCommits.map { Int($0.changes) } ?? -1
                print(
                    "ref replays, 16 clients, every 10th request a retry of the ref before it: \(replayed.operations) "
                        + "creates (\(Bench.format(replayed.perSecond, 0))/s, p99 \(us(replayed.latency.valueAtPercentile(99)))), "
                        + "\(replays.count) replays: p50 \(us(replays.latency.valueAtPercentile(50))), p99 "
                        + "\(us(replays.latency.valueAtPercentile(99))); changes committed \(written) "
                        + (written == replayed.operations
                            ? "(= creates: no replay wrote)" : "(≠ creates: a replay wrote)"))
            }
        }
        print("")
    }
}

/// One round of a client count's four steps.
struct CreateRound {
    var pizzad: LoadResult
    var ceiling: SameWork.Result
    var bound: Double
    /// The bound's server CPU per order, in µs.
    var boundCPU: Double
    var postgres: Double?
    /// pizzad in the same round with requests that carry no `ref` (16 clients only).
    var withoutRef: LoadResult?
    var refOverNone: Double? { withoutRef.map { pizzad.perSecond / $0.perSecond } }
    /// The ceiling in the same round with orders that carry no ref: what the ref's unique index costs plain C.
    var ceilingWithoutRef: SameWork.Result?
    var ceilingRefOverNone: Double? { ceilingWithoutRef.map { ceiling.perSecond / $0.perSecond } }
    var timesCeiling: Double { pizzad.perSecond / ceiling.perSecond }
    var timesPostgres: Double? { postgres.map { pizzad.perSecond / $0 } }
    var timesBound: Double { pizzad.perSecond / bound }
    /// pizzad's CPU per order over the bound's: what the counts target (≤ 1.3) asks of it.
    var cpuTimesBound: Double { pizzad.daemonCPUMicrosPerOperation / boundCPU }
    /// The ceiling over the peer: how far ahead of PostgreSQL plain C with group commit gets on this machine.
    var ceilingTimesPostgres: Double? { postgres.map { ceiling.perSecond / $0 } }
    /// The socket bound over the peer: how far ahead of it pizzad's architecture gets, written in C.
    var boundTimesPostgres: Double? { postgres.map { bound / $0 } }
}
