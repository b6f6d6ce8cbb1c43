import Foundation
import PizzaTesting

/// order.create with two pizzas from N clients, beside the ceiling (samework.c at the batch that many clients
/// make), the socket bound (the same rows behind pizzad's architecture in C, SocketWork/socketwork.c) and the peer
/// (PostgreSQL through pgbench with as many clients), each client count's four runs back to back. The targets'
/// count, 16 clients, runs its four steps `targetRounds` times: this machine's speed drifts from one step to the
/// next, and the median round says more than any one of them. First, the SQLite limit.
struct CreateStep {
    let run: BenchRun
    let seconds: Double
    let options: CreateOptions
    var peakRSS = 0.0
    /// The 16-client round with the median pizzad/ceiling ratio.
    var sixteen: (pizzad: LoadResult, ceiling: SameWork.Result)?

    init(run: BenchRun, seconds: Double, options: CreateOptions) {
        self.run = run
        self.seconds = seconds
        self.options = options
    }

    mutating func measure() throws {
        try limit()
        var rows: [[String]] = []
        let sameWork = try SameWork(
            source: Steps.baselines + "/samework.c", migrations: Steps.migrations, directory: run.work)
        let socketWork = try SocketWork(migrations: Steps.migrations, directory: run.work)
        let peer: PostgresPeer?
        do {
            peer = try PostgresPeer(sql: Steps.baselines + "/pg-samework.sql", directory: run.work)
        } catch {
            print("PostgreSQL peer not measured: \(error)")
            peer = nil
        }
        defer { peer?.stop() }
        var targetRoundsRun: [CreateRound] = []
        for clients in options.clients {
            for round in 1...(clients == 16 ? options.targetRounds : 1) {
                // Each step starts with nothing of the one before left to write back, and each round runs the three
                // in another order (rotated by the round): no one of them always goes first, on the coolest machine,
                // or last, after the others warmed it.
                var ceiling: SameWork.Result?
                var bound: SocketWork.Result?
                var pizzad: LoadResult?
                let directory = try run.folder("create-\(clients)-\(round)")
                for step in 0..<3 {
                    Bench.settleDisk()
                    switch (step + round - 1) % 3 {
                    case 0: ceiling = try sameWork.run(batch: clients, seconds: seconds)
                    case 1: bound = try socketWork.run(clients: clients, seconds: seconds)
                    default:
                        let daemon = try PizzadProcess.bench(binary: run.pizzad, directory: directory)
                        defer { _ = try? daemon.stop() }
                        pizzad = try Load.create(daemon: daemon, clients: clients, seconds: seconds)
                    }
                }
                Bench.settleDisk()
                guard let ceiling, let bound, let result = pizzad else { throw BenchError("a create step did not run") }
                // The same step without refs, back to back, for what a till's ref costs; and the ceiling's own cost.
                var withoutRef: LoadResult?
                var ceilingWithoutRef: SameWork.Result?
                if clients == 16 {
                    ceilingWithoutRef = try sameWork.run(batch: clients, seconds: seconds, refs: false)
                    Bench.settleDisk()
                    let plain = try PizzadProcess.bench(
                        binary: run.pizzad, directory: try run.folder("create-\(clients)-\(round)-noref"))
                    withoutRef = try Load.create(daemon: plain, clients: clients, seconds: seconds, refs: .none)
                    _ = try? plain.stop()
                    Bench.settleDisk()
                }
                let postgres = try peer?.run(clients: clients, seconds: seconds)
                peakRSS = max(peakRSS, result.peakRSS)
                let measured = CreateRound(
                    pizzad: result, ceiling: ceiling, bound: bound.perSecond, boundCPU: bound.cpuMicrosPerOrder,
                    postgres: postgres,
                    withoutRef: withoutRef,
                    ceilingWithoutRef: ceilingWithoutRef)
                if clients == 16 { targetRoundsRun.append(measured) }
                rows.append([
                    "\(clients)", Bench.format(result.perSecond, 0), us(result.latency.valueAtPercentile(50)),
                    us(result.latency.valueAtPercentile(99)), us(result.latency.valueAtPercentile(99.9)),
                    Bench.format(result.daemonCPUMicrosPerOperation, 0),
                    Bench.format(ceiling.perSecond, 0), Bench.format(ceiling.cpuMicrosPerOrder, 0),
                    Bench.format(measured.timesCeiling, 2), Bench.format(bound.perSecond, 0),
                    Bench.format(bound.cpuMicrosPerOrder, 0), Bench.format(measured.timesBound, 2),
                    postgres.map { Bench.format($0, 0) } ?? "-",
                    measured.timesPostgres.map { Bench.format($0, 2) } ?? "-",
                    result.groupCommits.map { Bench.format($0.changesPerCommit, 1) } ?? "-",
                    result.groupCommits.map { Bench.format($0.millisecondsPerCommit, 2) } ?? "-",
                    Bench.format(result.peakRSS, 1),
                ])
            }
        }
        try report(rows: rows, targetRoundsRun: targetRoundsRun)
    }

    /// The SQLite limit on this machine.
    private func limit() throws {
        let limit = try SQLiteLimit.measure(source: options.limitSource, directory: run.work)
        print("SQLite limit (\(options.limitSource)):")
        Bench.table(
            ["mode", "rows/s"],
            [
                ["a: 1 row/txn, synchronous=FULL", Bench.format(limit.modeA, 0)],
                ["c: 100 rows/txn, NORMAL", Bench.format(limit.modeC, 0)],
            ])
        print("")
    }
}

extension CreateStep {
    /// The last line of a run: pizzad over the same-work ceiling at 16 clients in the median round.
    func printHeadline() {
        guard let sixteen else { return }
        print(
            "pizzad/ceiling order.create orders/s ratio at 16 clients (median round): "
                + Bench.format(sixteen.pizzad.perSecond / sixteen.ceiling.perSecond, 2))
    }
}
