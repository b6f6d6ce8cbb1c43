import Foundation
import Histogram
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire
import SQLite

// pizzabench: pizzad's throughput, latency, CPU and memory beside the SQLite limit on the same machine, in one run.
//
//   swift run -c release pizzabench [--seconds S] [--orders N] [--limit-source PATH] [--target-rounds N]
//
// It builds Baselines/sqlite-limit.c and samework.c (the same-work ceiling), starts a throw-away PostgreSQL for
// pg-samework.sql (the peer), starts the release pizzad beside this binary on fresh databases, and drives it over the
// control socket. 16 clients, the targets' count, runs three rounds back to back (--target-rounds); the last line is
// pizzad over the same-work ceiling at 16 clients in the median round.

var seconds = 5.0
var bigOrders = 1_000_000
var limitSource: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Sources/pizzabench/Baselines/sqlite-limit.c").path
}()
/// The project's migrations, which samework.c applies as pizzad does.
let migrationsDirectory: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("migrations").path
}()
/// The sections a full run has; torture and powercut run only on their own (`--only torture`).
let fullRun: Set<String> = ["create", "kitchen", "big", "replication", "multicast", "writer"]
/// The sections that only run alone: long, or needing what a full run does not (Litestream, FUSE).
let ownSections: Set<String> = ["torture", "powercut", "soak", "litestream", "restore", "board", "chain"]
var sections = fullRun
var clientCounts = [1, 4, 16, 64]
var tortureRounds: Int?
/// How many times the targets' client count (16) runs its four steps, back to back; the targets are read off the median.
var targetRounds = 3
var hostileLines = 100_000
var soakMinutes = 30
var chainShops = [10, 100, 1_000]
var arguments = CommandLine.arguments.dropFirst()
func usage() -> Never {
    print(
        "usage: pizzabench [--seconds S] [--orders N] [--limit-source PATH] [--only create,kitchen,big,replication,multicast,writer] [--clients 1,4,16,64] [--target-rounds N]"
    )
    print("       pizzabench --only torture [--rounds N] [--hostile-lines N]")
    print("       pizzabench --only powercut [--rounds N]")
    print("       pizzabench --only soak [--minutes N] [--clients N]")
    print("       pizzabench --only litestream [--seconds S] [--clients N] [--rounds N]")
    print("       pizzabench --only restore [--orders N]")
    print("       pizzabench --only board [--seconds S] [--rounds N]")
    print("       pizzabench --only chain [--shops 10,100,1000] [--seconds S]")
    exit(2)
}
/// The value after `flag` as a positive number; a missing or bad one ends the run with the usage (exit 2) instead of
/// a run of the defaults the caller did not ask for.
@MainActor func positive<N: LosslessStringConvertible & Comparable & ExpressibleByIntegerLiteral>(_ flag: String) -> N {
    let text = arguments.popFirst() ?? ""
    guard let value = N(text), value > 0 else {
        print("pizzabench: \(flag) needs a number above 0, not '\(text)'")
        usage()
    }
    return value
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--seconds": seconds = positive(argument)
    case "--orders": bigOrders = positive(argument)
    case "--limit-source": limitSource = arguments.popFirst() ?? limitSource
    case "--only":
        let text = arguments.popFirst() ?? ""
        let named = Set(text.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        guard !named.isEmpty,
            named.isSubset(of: fullRun) || named.count == 1 && ownSections.contains(named.first!)
        else {
            print(
                "pizzabench: --only takes sections from \(fullRun.sorted().joined(separator: ",")), or one of "
                    + "\(ownSections.sorted().joined(separator: ", ")) alone, not '\(text)'")
            usage()
        }
        sections = named
    case "--rounds": tortureRounds = positive(argument) as Int
    case "--hostile-lines": hostileLines = positive(argument)
    case "--minutes": soakMinutes = positive(argument)
    case "--clients":
        let text = arguments.popFirst() ?? ""
        let counts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else {
            print("pizzabench: --clients needs client counts above 0 separated by commas, not '\(text)'")
            usage()
        }
        clientCounts = counts
    case "--target-rounds": targetRounds = positive(argument)
    case "--shops":
        let text = arguments.popFirst() ?? ""
        let counts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        guard !counts.isEmpty, counts.allSatisfy({ (1...1_000).contains($0) }) else {
            print("pizzabench: --shops needs shop counts from 1 to 1000 separated by commas, not '\(text)'")
            usage()
        }
        chainShops = counts
    default: usage()
    }
}

let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let pizzad = binaries + "/pizzad"
guard FileManager.default.isExecutableFile(atPath: pizzad) else {
    print("pizzabench: no pizzad beside this binary (\(pizzad)); build it: swift build -c release")
    exit(1)
}
let work = NSTemporaryDirectory() + "pizzabench-\(getpid())"
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
/// Removes the work folder, at the end of every way out: a normal end, `finish(clean:)`, an interrupt.
@Sendable func removeWork() {
    do { try FileManager.default.removeItem(atPath: work) } catch {
        print("pizzabench: could not remove \(work): \(error)")
    }
}
defer { removeWork() }
LeftBehind.catchInterrupts()
// Registered first, so it runs last: after the servers in it are stopped.
_ = LeftBehind.stopOnInterrupt(removeWork)

func us(_ value: UInt64) -> String { Bench.latency(value) }

/// Removes the work folder and exits: `exit` skips the `defer` above, which left a folder per run in `/tmp`.
func finish(clean: Bool) -> Never {
    removeWork()
    exit(clean ? 0 : 1)
}

print(
    "pizzabench: \(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, "
        + "\(try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU")"
)
print("client and daemon share the machine; \(Bench.format(seconds, 0)) s per load step\n")

// The crash loop, on its own: pizzabench --only torture [--rounds N].
if sections == ["torture"] {
    let directory = work + "/torture"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let crashRounds = tortureRounds ?? 20
    print("crash loop: \(crashRounds) rounds of load with a SIGKILL (every fifth a SIGTERM) at a random moment,")
    print(
        "then \(hostileLines) hostile lines over 50 connections, 1000 idle ones and one that never reads, beside 8 clients"
    )
    // The hostile run holds over a thousand connections open from this process too.
    var files = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
        files.rlim_cur = min(files.rlim_max, 65_536)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
    }
    let summary = try await Torture.run(
        binary: pizzad, directory: directory, rounds: crashRounds, clients: 8, hostileLines: hostileLines)
    let hostile = summary.hostile
    Bench.table(
        ["rounds", "requests", "faults injected", "acknowledged orders", "acknowledged lost", "unexpected exits"],
        [
            [
                "\(summary.rounds)", "\(summary.requests)", "\(summary.faults)", "\(summary.acknowledged)",
                "\(summary.lost)",
                "\(summary.unexpectedExits)",
            ]
        ])
    print("")
    Bench.table(
        [
            "hostile lines", "connections answered to the end", "idle connections", "silent client held back",
            "legitimate requests served", "daemon peak RSS MiB",
        ],
        [
            [
                "\(hostile.lines)", "\(hostile.survived)/\(hostile.connections)", "\(hostile.idle)",
                hostile.silentClientHeldBack ? "yes" : "no", "\(hostile.served)", Bench.format(hostile.peakRSSMiB, 1),
            ]
        ])
    for problem in summary.problems { print("problem: \(problem)") }
    let clean = summary.lost == 0 && summary.unexpectedExits == 0 && summary.problems.isEmpty
    print(clean ? "crash loop: clean" : "crash loop: FAILED")
    finish(clean: clean)
}

// The soak, on its own: pizzabench --only soak [--minutes N] [--clients N].
if sections == ["soak"] {
    let directory = work + "/soak"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let clients = clientCounts == [1, 4, 16, 64] ? 16 : clientCounts[0]
    let flat = try await Soak.run(binary: pizzad, directory: directory, minutes: soakMinutes, clients: clients)
    finish(clean: flat)
}

// Litestream beside pizzad, on its own: pizzabench --only litestream [--seconds S] [--clients N] [--rounds N].
if sections == ["litestream"] {
    let clients = clientCounts == [1, 4, 16, 64] ? 16 : clientCounts[0]
    let held = try LitestreamBench.report(
        pizzad: pizzad, work: work + "/litestream", clients: clients, seconds: seconds, rounds: tortureRounds ?? 2)
    finish(clean: held)
}

// The board pages' cost, on its own: pizzabench --only board [--seconds S] [--rounds N].
if sections == ["board"] {
    let held = try BoardBench.report(
        pizzad: pizzad, work: work + "/board", seconds: seconds, rounds: tortureRounds ?? 3)
    finish(clean: held)
}

// A chain of shops on one centre, on its own: pizzabench --only chain [--shops 10,100,1000] [--seconds S].
if sections == ["chain"] {
    if let reason = PgBouncerServer.unavailableReason {
        print("chain: cannot run here: \(reason)")
        finish(clean: false)
    }
    let held = try await ChainBench.report(
        work: work + "/chain", shopCounts: chainShops, seconds: seconds == 5 ? 10 : seconds)
    finish(clean: held)
}

// Restore drills, on their own: pizzabench --only restore [--orders N].
if sections == ["restore"] {
    let held = try await RestoreBench.report(pizzad: pizzad, work: work + "/restore", orders: bigOrders)
    finish(clean: held)
}

// Power cuts, on their own: pizzabench --only powercut [--rounds N]. pizzad's database and backups on powercutfs
// (Tests/PowerCut/powercutfs.c), load, a cut at a random moment with pizzad killed at once, remount, restart, check.
if sections == ["powercut"] {
    if let reason = PowerCutFileSystem.unavailableReason {
        print("power cuts: cannot run here: \(reason)")
        finish(clean: false)
    }
    var repository = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { repository.deleteLastPathComponent() }
    let fileSystem = try PowerCutFileSystem.build(
        source: repository.path + "/Tests/PowerCut/powercutfs.c", into: binaries)
    let rounds = tortureRounds ?? 50
    print(
        "power cuts: \(rounds) rounds of load (8 clients creating, placing and advancing, one taking backups) on powercutfs,"
    )
    print(
        "each cut at a random moment (50-1500 ms after the round's first acknowledgements) with pizzad killed at once,")
    print(
        "then remount, restart and the checks: acknowledged orders, transitions, audit entries and backups, integrity,")
    print("foreign keys, nothing half there, audit.verify")
    let trial = try PowerCutTrial(pizzad: pizzad, fileSystem: fileSystem, root: work + "/powercut")
    try trial.prepareFolders()
    let started = Bench.now()
    for round in 0..<rounds { try await trial.round(round, clients: 8, cutWithin: 50...1500) }
    let summary = try await trial.finish()
    Bench.table(
        [
            "rounds", "acknowledged orders", "acknowledged transitions", "acknowledged backups", "acknowledged lost",
            "unsynced bytes dropped", "torn writes injected", "names lost", "seconds",
        ],
        [
            [
                "\(summary.rounds)", "\(summary.acknowledgedOrders)", "\(summary.acknowledgedTransitions)",
                "\(summary.acknowledgedBackups)",
                "\(summary.lost)", "\(summary.droppedBytes)", "\(summary.tornWrites)", "\(summary.lostEntries)",
                Bench.format(Double(Bench.now() - started) / 1e9, 0),
            ]
        ])
    for problem in summary.problems { print("problem: \(problem)") }
    print(summary)
    let clean = summary.lost == 0 && summary.problems.isEmpty && summary.droppedBytes > 0
    print(
        clean
            ? "power cuts: clean"
            : summary.droppedBytes == 0
                ? "power cuts: FAILED (nothing was dropped: the run proved nothing)" : "power cuts: FAILED")
    finish(clean: clean)
}

// 1. The limit.
let limit = try SQLiteLimit.measure(source: limitSource, directory: work)
print("SQLite limit (\(limitSource)):")
Bench.table(
    ["mode", "rows/s"],
    [
        ["a: 1 row/txn, synchronous=FULL", Bench.format(limit.modeA, 0)],
        ["c: 100 rows/txn, NORMAL", Bench.format(limit.modeC, 0)],
    ])
print("")

// 2. order.create with two pizzas from N clients, beside the ceiling (samework.c at the batch that many clients
// make), the socket bound (the same rows behind pizzad's architecture in C, SocketWork/socketwork.c) and the peer
// (PostgreSQL through pgbench with as many clients), each client count's four runs back to back. The targets' count,
// 16 clients, runs its four steps `targetRounds` times: this machine's speed drifts from one step to the next, and
// the median round says more than any one of them.
let baselines = URL(fileURLWithPath: limitSource).deletingLastPathComponent().path
var peakRSS = 0.0
/// The 16-client round with the median pizzad/ceiling ratio.
var sixteen: (pizzad: LoadResult, ceiling: SameWork.Result)?
var rows: [[String]] = []
if sections.contains("create") {
    let sameWork = try SameWork(
        source: baselines + "/samework.c", migrations: migrationsDirectory, directory: work)
    let socketWork = try SocketWork(migrations: migrationsDirectory, directory: work)
    let peer: PostgresPeer?
    do {
        peer = try PostgresPeer(sql: baselines + "/pg-samework.sql", directory: work)
    } catch {
        print("PostgreSQL peer not measured: \(error)")
        peer = nil
    }
    defer { peer?.stop() }
    /// One round of a client count's four steps.
    struct Round {
        var pizzad: LoadResult
        var ceiling: SameWork.Result
        var bound: Double
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
        /// The ceiling over the peer: how far ahead of PostgreSQL plain C with group commit gets on this machine.
        var ceilingTimesPostgres: Double? { postgres.map { ceiling.perSecond / $0 } }
        /// The socket bound over the peer: how far ahead of it pizzad's architecture gets, written in C.
        var boundTimesPostgres: Double? { postgres.map { bound / $0 } }
    }
    var targetRoundsRun: [Round] = []
    for clients in clientCounts {
        for round in 1...(clients == 16 ? targetRounds : 1) {
            let ceiling = try sameWork.run(batch: clients, seconds: seconds)
            let bound = try socketWork.run(clients: clients, seconds: seconds)
            let directory = work + "/create-\(clients)-\(round)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let daemon = try BenchDaemon(binary: pizzad, directory: directory)
            let result = try Load.create(daemon: daemon, clients: clients, seconds: seconds)
            daemon.stop()
            // The same step without refs, back to back, for what a till's ref costs; and the ceiling's own cost.
            var withoutRef: LoadResult?
            var ceilingWithoutRef: SameWork.Result?
            if clients == 16 {
                ceilingWithoutRef = try sameWork.run(batch: clients, seconds: seconds, refs: false)
                try FileManager.default.createDirectory(
                    atPath: directory + "-noref", withIntermediateDirectories: true)
                let plain = try BenchDaemon(binary: pizzad, directory: directory + "-noref")
                withoutRef = try Load.create(daemon: plain, clients: clients, seconds: seconds, refs: .none)
                plain.stop()
            }
            let postgres = try peer?.run(clients: clients, seconds: seconds)
            peakRSS = max(peakRSS, result.peakRSS)
            let measured = Round(
                pizzad: result, ceiling: ceiling, bound: bound.perSecond, postgres: postgres, withoutRef: withoutRef,
                ceilingWithoutRef: ceilingWithoutRef)
            if clients == 16 { targetRoundsRun.append(measured) }
            rows.append([
                "\(clients)", Bench.format(result.perSecond, 0), us(result.latency.valueAtPercentile(50)),
                us(result.latency.valueAtPercentile(99)), us(result.latency.valueAtPercentile(99.9)),
                Bench.format(result.daemonCPU / Double(max(result.operations, 1)) * 1e6, 0),
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
    print(
        "order.create (two pizzas each, placed, each with a unique ref as a till sends), durable; ceiling = samework.c")
    print("at batch = clients;")
    print("bound = the same rows behind pizzad's architecture in C (socketwork.c: Unix sockets, two epoll loops, one")
    print("group-commit writer, no savepoint per order, no parsing); PostgreSQL = pg-samework.sql through pgbench with")
    print("as many clients (synchronous_commit=on); 16 clients: \(targetRounds) rounds of the four steps:")
    Bench.table(
        [
            "clients", "orders/s", "p50", "p99", "p999", "CPU µs/order", "ceiling/s", "ceiling µs/order",
            "× ceiling", "bound/s", "bound µs/order", "× bound", "PostgreSQL/s", "× PostgreSQL", "changes/commit",
            "commit ms", "peak RSS MiB",
        ], rows)
    print(
        "changes/commit and commit ms: pizzad's own pizzad_group_commit metrics over the run (BEGIN to durable COMMIT)")
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
                + (postgres.isEmpty ? "-" : spread(postgres)) + ", × bound " + spread(targetRoundsRun.map(\.timesBound))
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
    if clientCounts.contains(16) {
        // A till's retry after a timeout: every 10th request repeats the ref of the order before it. It must answer
        // that order at once and write nothing: the daemon's own count of changes committed equals the creates.
        let directory = work + "/create-replay"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let daemon = try BenchDaemon(binary: pizzad, directory: directory)
        let replayed = try Load.create(daemon: daemon, clients: 16, seconds: seconds, refs: .fresh(replayEvery: 10))
        daemon.stop()
        if let replays = replayed.replays {
            let written = replayed.groupCommits.map { Int($0.changes) } ?? -1
            print(
                "ref replays, 16 clients, every 10th request a retry of the ref before it: \(replayed.operations) "
                    + "creates (\(Bench.format(replayed.perSecond, 0))/s, p99 \(us(replayed.latency.valueAtPercentile(99)))), "
                    + "\(replays.count) replays: p50 \(us(replays.latency.valueAtPercentile(50))), p99 "
                    + "\(us(replays.latency.valueAtPercentile(99))); changes committed \(written) "
                    + (written == replayed.operations ? "(= creates: no replay wrote)" : "(≠ creates: a replay wrote)"))
        }
    }
    print("")
}

// 3. The kitchen.
if sections.contains("kitchen") {
    let directory = work + "/kitchen"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let daemon = try BenchDaemon(binary: pizzad, directory: directory)
    let kitchen = try await Load.kitchen(daemon: daemon, clients: 16, seconds: seconds)
    daemon.stop()
    peakRSS = max(peakRSS, kitchen.result.peakRSS)
    print("mixed kitchen load, 16 clients + 1 events.watch subscriber (\(kitchen.events) events received):")
    Bench.table(
        ["operation", "count", "p50", "p99", "p999"],
        ["create", "place", "advance", "get", "list"].map { kind in
            let histogram = kitchen.byKind[kind]!
            return [
                kind, "\(histogram.totalCount)", us(histogram.valueAtPercentile(50)),
                us(histogram.valueAtPercentile(99)),
                us(histogram.valueAtPercentile(99.9)),
            ]
        } + [
            [
                "all", "\(kitchen.result.operations)", us(kitchen.result.latency.valueAtPercentile(50)),
                us(kitchen.result.latency.valueAtPercentile(99)), us(kitchen.result.latency.valueAtPercentile(99.9)),
            ]
        ])
    print(
        "\(Bench.format(kitchen.result.perSecond, 0)) requests/s, daemon CPU \(Bench.format(kitchen.result.daemonCPU, 2)) s, "
            + "peak RSS \(Bench.format(kitchen.result.peakRSS, 1)) MiB\n")
}

// 4. A big database: start-up and reads.
if sections.contains("big") {
    let directory = work + "/big"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let first = try BenchDaemon(binary: pizzad, directory: directory)
    first.stop()
    let filling = Bench.now()
    try BigDatabase.fill(directory + "/pizzad.sqlite", orders: bigOrders)
    print("database with \(bigOrders) orders written in \(Bench.format(Double(Bench.now() - filling) / 1e9, 1)) s")
    var readies: [UInt64] = []
    var daemon: BenchDaemon?
    for _ in 0..<3 {
        daemon?.stop()
        daemon = try BenchDaemon(binary: pizzad, directory: directory)
        readies.append(daemon!.readyAfter)
    }
    let big = daemon!
    let getRequest: (Int) -> (String, [(String, JSONValue)]) = { index in
        (OrderOperation.get.rawValue, [("id", .int(Int64(1 + (index * 7919) % bigOrders)))])
    }
    let get = try Load.blockingLatency(daemon: big, count: 2000, getRequest)
    let getThroughClient = try await Load.latency(daemon: big, count: 2000, getRequest)
    let list = try await Load.latency(daemon: big, count: 500) { index in
        (
            OrderOperation.list.rawValue,
            [("status", .string(["placed", "baking", "delivered", "cancelled"][index % 4])), ("limit", 50)]
        )
    }
    peakRSS = max(peakRSS, Bench.peakRSS(of: big.pid))
    big.stop()
    Bench.table(
        ["with \(bigOrders) orders", "p50", "p99", "max"],
        [
            ["start to READY=1 (3 starts)", us(readies.sorted()[1]), "-", us(readies.max()!)],
            [OrderOperation.get.rawValue, us(get.valueAtPercentile(50)), us(get.valueAtPercentile(99)), us(get.max)],
            [
                "order.get through PizzaClient", us(getThroughClient.valueAtPercentile(50)),
                us(getThroughClient.valueAtPercentile(99)), us(getThroughClient.max),
            ],
            ["order.list --status (50)", us(list.valueAtPercentile(50)), us(list.valueAtPercentile(99)), us(list.max)],
        ])
    print(
        "order.get: one client on a blocking socket, like the order.create load; through PizzaClient: pizzactl's NIO"
    )
    print("client, whose own thread hops (task, event loop, promise) are in the figure")
    print("")
}

// 5. Shipping to a central PostgreSQL.
if sections.contains("replication") {
    if let reason = PostgresServer.unavailableReason {
        print("replication: skipped, \(reason)\n")
    } else {
        let clients = 16
        let (runs, shipping, paced) = try await ReplicationBench.run(
            pizzad: pizzad, work: work, clients: clients, seconds: seconds)
        print(
            "replication to a central PostgreSQL on this machine (synchronous_commit=on), order.create from \(clients) clients,"
        )
        print(
            "back to back; each shipping run is compared with the mean of the off runs beside it. \"centre niced\": the"
        )
        print(
            "PostgreSQL server at nice 19, so it takes only idle CPU, as a centre on another machine would take none:")
        let pacedName = "\(Bench.format(paced.perSecond, 0))/s"
        let pacedRuns: [(name: String, run: ReplicationBench.Run, ratio: Double?)] = [
            ("off at " + pacedName, paced.offBefore, nil), ("on at " + pacedName, paced.on, nil),
            ("off at " + pacedName, paced.offAfter, nil),
        ]
        Bench.table(
            ["run", "orders/s", "p50", "p99", "daemon CPU µs/order", "× replication off"],
            (runs + pacedRuns).map { name, run, ratio in
                let result = run.result
                return [
                    name, Bench.format(result.perSecond, 0), us(result.latency.valueAtPercentile(50)),
                    us(result.latency.valueAtPercentile(99)),
                    Bench.format(result.daemonCPU / Double(result.operations) * 1e6, 0),
                    ratio.map { Bench.format($0, 2) } ?? "",
                ]
            })
        print("")
        Bench.table(
            [
                "run", "entries shipped", "batches", "shipped/s", "backlog at load end", "caught up after", "lag p50",
                "lag p99", "lag max",
            ],
            shipping.map { run in
                [
                    run.name, "\(run.on.events)", "\(run.on.batches)", Bench.format(run.shippedPerSecond, 0),
                    "\(run.on.backlogAtEnd)",
                    Bench.format(run.on.drainSeconds, 2) + " s", Bench.format(run.lagP50, 2) + " ms",
                    Bench.format(run.lagP99, 2) + " ms",
                    Bench.format(run.lagMax, 2) + " ms",
                ]
            })
        print(
            "(lag: the entry's commit time in the shop to its insert at the centre; shipped/s: entries over load plus catch-up time)"
        )
        // What a shop pays for shipping is its own CPU per order, and how late the centre hears: the order rate
        // with the centre on the same two cores is shown, not targeted. The CPU is
        // compared at one pace (the same work); flat out it is shown too.
        for run in shipping {
            print(
                "replication \(run.name), flat out: pizzad's own CPU per order on/off \(Bench.format(1 / run.cpuRatio, 2))×, "
                    + "lag p99 \(Bench.format(run.lagP99, 0)) ms (target < 250: "
                    + "\(run.lagP99 < 250 ? "held" : "NOT held")); order rate on/off \(Bench.format(run.ratio, 2)) "
                    + "(the centre on the same cores)")
        }
        print(
            "replication at \(pacedName) (the same work on and off): pizzad's own CPU per order on/off "
                + "\(Bench.format(paced.cpuCost, 2))× (target ≤ 1.10: \(paced.cpuCost <= 1.1 ? "held" : "NOT held")), "
                + "lag p99 \(Bench.format(paced.lagP99, 0)) ms (target < 250: \(paced.lagP99 < 250 ? "held" : "NOT held"))"
        )
        print("")
    }
}

// 6. Multicast dispatch.
if sections.contains("multicast") {
    print("multicast dispatch, ns per delegate call (best of 7 rounds, the four ways taking turns):")
    Bench.table(
        ["delegates", "direct protocol call", "MulticastDelegate", "seed weak-box array", "NotificationCenter"],
        [1, 3, 100].map { count in
            let row = MulticastBench.measure(delegates: count)
            return [
                "\(count)", Bench.format(row.direct), Bench.format(row.multicast), Bench.format(row.seed),
                Bench.format(row.notificationCenter),
            ]
        })
    print("")
}

// 7. The storage path alone, in this process.
if sections.contains("writer") {
    print(
        "the storage path in this process, no socket (16 tasks creating two-pizza placed orders through the repository,"
    )
    print("persistence and audit on a real SQLite file; 3 rounds each, taking turns; CPU: the whole process):")
    var runs: [WriterBench.Run] = []
    for _ in 0..<3 {
        for synchronous in [ConnectionSettings.Synchronous.off, .full] {
            runs.append(
                try await WriterBench.measure(
                    synchronous: synchronous, orders: synchronous == .off ? 60_000 : 30_000, folder: work,
                    migrations: migrationsDirectory))
        }
    }
    Bench.table(
        ["synchronous", "orders/s", "CPU µs/order"],
        runs.map { [$0.synchronous.rawValue, Bench.format($0.perSecond, 0), Bench.format($0.cpuPerOrder, 1)] })
    print("")
}

if peakRSS > 0 { print("peak RSS of pizzad through the whole run: \(Bench.format(peakRSS, 1)) MiB") }
if let sixteen {
    print(
        "pizzad/ceiling order.create orders/s ratio at 16 clients (median round): "
            + Bench.format(sixteen.pizzad.perSecond / sixteen.ceiling.perSecond, 2))
}
