import Foundation
import PizzaCore
import PizzaTesting

/// What `order.create` does per order, counted rather than timed: heap allocations (an `LD_PRELOAD`
/// counter, `Baselines/alloccount.c`), system calls (the kernel's `raw_syscalls:sys_enter` tracepoint through `perf
/// stat`, which unlike strace leaves the batching as it is) and context switches (`perf stat`'s software counter), for
/// pizzad and for the socket bound (socketwork.c), each over the same window of load at 16 clients, two pizzas,
/// placed, unique refs. Counts do not drift with the machine's speed as times do.
enum Counts {
    /// One process's counts over a window, per order.
    struct PerOrder {
        var orders: Int
        var seconds: Double
        var allocations: Double
        var frees: Double
        var syscalls: Double
        var contextSwitches: Double
        var cpuMicros: Double
        /// Of `cpuMicros`, the event loops' (reading, parsing and answering requests); the rest is the writer's
        /// above all.
        var loopMicros: Double
        /// Of `cpuMicros`, in user mode (the server's own code, not the kernel's on its behalf)...
        var userMicros: Double
        /// ...and of `loopMicros`.
        var loopUserMicros: Double
        /// How often the event loops were preempted (by the clients they woke, mostly).
        var loopPreemptions: Double
    }

    /// The counter library, built once into `directory`.
    static func library(in directory: String) throws -> String {
        let library = directory + "/alloccount.so"
        if !FileManager.default.fileExists(atPath: library) {
            try Bench.run(
                "/usr/bin/env",
                ["gcc", "-shared", "-fPIC", "-O2", "-Wall", "-o", library, Steps.baselines + "/alloccount.c"])
        }
        return library
    }

    /// The five counters of a counts file: malloc, calloc, realloc, aligned, free.
    static func read(_ file: String) -> [UInt64] {
        guard let data = FileManager.default.contents(atPath: file), data.count >= 40 else { return [0, 0, 0, 0, 0] }
        return (0..<5).map { index in
            data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
        }
    }

    /// Counts `pid` over two windows of `window` seconds each; `orders` says how many orders exist (read before and
    /// after each). The CPU and the rate come from the first window, with nothing attached: `perf stat`'s
    /// `raw_syscalls` tracepoint costs every system call some CPU, and the bound makes twice pizzad's, so CPU measured
    /// under it favoured pizzad. The counts come from the second window, under `perf stat`.
    static func count(
        pid: Int32, countsFile: String, window: Double, orders: () throws -> Int
    ) throws -> PerOrder {
        let cpuOrdersBefore = try orders()
        // One read of the process's stat for its user and system time, at each end of the window.
        let cpuBefore = ProcessCPU.split(pid)
        let threadsBefore = ThreadCPU(of: pid)
        Thread.sleep(forTimeInterval: window)
        let cpuAfter = ProcessCPU.split(pid)
        let user = cpuAfter.user - cpuBefore.user
        let cpu = user + cpuAfter.system - cpuBefore.system
        let loops = ThreadCPU(of: pid).loops(since: threadsBefore)
        let cpuOrders = max(1, try orders() - cpuOrdersBefore)

        let before = read(countsFile)
        let ordersBefore = try orders()
        let perf = try Bench.runStatus(
            "/usr/bin/env",
            [
                "perf", "stat", "-x", ",", "-e", "raw_syscalls:sys_enter,context-switches", "-p", String(pid), "--",
                "sleep", Bench.format(window, 1),
            ])
        let after = read(countsFile)
        let made = max(1, try orders() - ordersBefore)
        func perfCount(_ event: String) -> Double {
            let line = perf.output.split(separator: "\n").first { $0.contains(event) }
            return line.flatMap { Double($0.split(separator: ",").first ?? "") } ?? .nan
        }
        let allocations = (0..<4).reduce(UInt64(0)) { $0 + (after[$1] &- before[$1]) }
        return PerOrder(
            orders: cpuOrders, seconds: window, allocations: Double(allocations) / Double(made),
            frees: Double(after[4] &- before[4]) / Double(made),
            syscalls: perfCount("raw_syscalls:sys_enter") / Double(made),
            contextSwitches: perfCount("context-switches") / Double(made), cpuMicros: cpu / Double(cpuOrders) * 1e6,
            loopMicros: loops.seconds / Double(cpuOrders) * 1e6, userMicros: user / Double(cpuOrders) * 1e6,
            loopUserMicros: loops.user / Double(cpuOrders) * 1e6,
            loopPreemptions: Double(loops.preemptions) / Double(cpuOrders))
    }

    /// The largest order id in `database` (sqlite3 reads it beside the writer).
    static func orderCount(_ database: String) throws -> Int {
        Int(try Bench.run("/usr/bin/sqlite3", [database, "SELECT coalesce(max(id), 0) FROM carts"]).trimmed) ?? 0
    }

    /// pizzad and the bound, `rounds` times each, back to back; with `before`, a second pizzad binary (the tree
    /// before a change) in each round too, the two taking turns going first. Prints the table and the CPU per order
    /// against the bound by round, and returns pizzad's median round (by allocations) and the median of its CPU per
    /// order over the bound's.
    @discardableResult
    static func report(
        pizzad: String, before: String? = nil, work: String, window: Double, rounds: Int, record: String? = nil
    ) throws -> (perOrder: PerOrder, cpuTimesBound: Double)? {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let library = try library(in: work)
        let socketWork = try SocketWork(migrations: Steps.migrations, directory: work)
        print(
            "counts per order.create (16 clients, two pizzas, placed, unique refs): CPU and orders/s over "
                + "\(Bench.format(window, 0)) s of load with nothing attached, then over as long again heap allocations "
                + "(LD_PRELOAD counter), system calls (perf raw_syscalls) and context switches (perf)")
        var rows: [[String]] = []
        var pizzadRounds: [PerOrder] = []
        // By round, each binary's CPU per order over the bound's, in the order of `binaries`.
        var ratios: [[Double]] = []
        // By round, pizzad's CPU per order beyond the bound's: in the event loops, and in the rest; each also in user
        // mode alone.
        var split: [(loops: Double, rest: Double, loopsUser: Double, restUser: Double)] = []
        // By round, the event loops' CPU in user mode: pizzad's, SwiftNIO's floor's and the bound's.
        var loopsUser: [(pizzad: Double, floor: Double, bound: Double)] = []
        let binaries = [("pizzad", pizzad)] + (before.map { [("before (\($0))", $0)] } ?? [])
        for round in 1...rounds {
            var measured = [PerOrder?](repeating: nil, count: binaries.count)
            let order = Array(binaries.indices)
            for index in round % 2 == 1 ? order : order.reversed() {
                let (name, binary) = binaries[index]
                Bench.settleDisk()
                let counts = try countPizzad(
                    pizzad: binary, directory: work + "/counts-\(round)-\(index == 0 ? "pizzad" : "before")",
                    library: library, window: window, record: round == 1 && index == 0 ? record : nil)
                measured[index] = counts
                rows.append(row("\(round)", name, counts))
            }
            Bench.settleDisk()
            let bound = try countBound(
                socketWork: socketWork, library: library, directory: work + "/counts-\(round)", window: window)
            rows.append(row("\(round)", "socket bound (socketwork.c)", bound))
            Bench.settleDisk()
            let floor = try countFloor(library: library, directory: work + "/counts-\(round)-floor", window: window)
            rows.append(row("\(round)", "SwiftNIO's floor (nio-floor)", floor))
            let counted = measured.compactMap { $0 }
            loopsUser.append((counted[0].loopUserMicros, floor.loopUserMicros, bound.loopUserMicros))
            pizzadRounds.append(counted[0])
            ratios.append(counted.map { $0.cpuMicros / bound.cpuMicros })
            let rest = (pizzad: counted[0].cpuMicros - counted[0].loopMicros, bound: bound.cpuMicros - bound.loopMicros)
            let restUser = (
                pizzad: counted[0].userMicros - counted[0].loopUserMicros,
                bound: bound.userMicros - bound.loopUserMicros
            )
            split.append(
                (
                    counted[0].loopMicros - bound.loopMicros, rest.pizzad - rest.bound,
                    counted[0].loopUserMicros - bound.loopUserMicros, restUser.pizzad - restUser.bound
                ))
        }
        Bench.table(
            [
                "round", "server", "orders/s", "allocations", "frees", "system calls", "context switches", "CPU µs",
                "loops µs (user)", "rest µs (user)", "loop preemptions",
            ], rows)
        /// The rounds' values and their median (of an even count, the mean of the middle two).
        func spread(_ values: [Double]) -> String {
            let sorted = values.sorted()
            let median = (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
            return values.map { Bench.format($0, 2) }.joined(separator: ", ") + " (median "
                + Bench.format(median, 2) + ")"
        }
        let cpuRatios = ratios.map { $0[0] }.sorted()
        let cpuTimesBound = (cpuRatios[(cpuRatios.count - 1) / 2] + cpuRatios[cpuRatios.count / 2]) / 2
        print(
            "CPU per order × the bound's, by round: pizzad " + spread(ratios.map { $0[0] }) + "; target ≤ 1.3: "
                + (cpuTimesBound <= 1.3 ? "held" : "NOT HELD"))
        if binaries.count > 1 { print("  before, the same rounds: " + spread(ratios.map { $0[1] })) }
        print(
            "pizzad's CPU µs per order beyond the bound's, by round (in brackets, in user mode alone): in the event loops "
                + split.map { Bench.format($0.loops, 1) + " (" + Bench.format($0.loopsUser, 1) + ")" }
                .joined(separator: ", ")
                + "; in the rest (the writer above all) "
                + split.map { Bench.format($0.rest, 1) + " (" + Bench.format($0.restUser, 1) + ")" }
                .joined(separator: ", "))
        print(
            "the event loops in user mode, µs per order by round: pizzad "
                + loopsUser.map { Bench.format($0.pizzad, 1) }.joined(separator: ", ") + "; SwiftNIO's floor "
                + loopsUser.map { Bench.format($0.floor, 1) }.joined(separator: ", ") + "; the bound "
                + loopsUser.map { Bench.format($0.bound, 1) }.joined(separator: ", "))
        let median = pizzadRounds.sorted { $0.allocations < $1.allocations }[pizzadRounds.count / 2]
        print(
            "counts: pizzad \(Bench.format(median.allocations, 1)) heap allocations per order.create (median round; "
                + "target ≤ 50): " + (median.allocations <= 50 ? "held" : "NOT HELD"))
        return (median, cpuTimesBound)
    }

    /// The bound, its server process counted the same way (its clients are a forked child that does not count).
    static func countBound(socketWork: SocketWork, library: String, directory: String, window: Double) throws
        -> PerOrder
    {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let boundCounts = directory + "/bound.counts"
        let database = directory + "/socketwork.db"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: socketWork.binary)
        process.arguments = [database, Steps.migrations, "16", Bench.format(2 * window + 3, 1)]
        process.environment = ["LD_PRELOAD": library, "ALLOC_COUNT_FILE": boundCounts]
        process.standardOutput = FileHandle.nullDevice
        try process.runWithCleanSignals()
        Thread.sleep(forTimeInterval: 1.5)
        let bound = try count(pid: process.processIdentifier, countsFile: boundCounts, window: window) {
            try orderCount(database)
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
        return bound
    }

    /// pizzad under the counter, loaded from this process's clients.
    static func countPizzad(
        pizzad: String, directory: String, library: String, window: Double, record: String?
    ) throws -> PerOrder {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let countsFile = directory + "/pizzad.counts"
        let environment = ["LD_PRELOAD": library, "ALLOC_COUNT_FILE": countsFile]
        let daemon = try PizzadProcess.bench(binary: pizzad, directory: directory, environment: environment)
        let loaded = DispatchSemaphore(value: 0)
        let load = Locked<Result<LoadResult, any Error>?>(nil)
        Thread.detachNewThread {
            load.withLock { $0 = Result { try Load.create(daemon: daemon, clients: 16, seconds: 2 * window + 3) } }
            loaded.signal()
        }
        Thread.sleep(forTimeInterval: 1.5)
        if let record {
            // Where pizzad allocates: a call graph per malloc (a uprobe: `perf probe -x libc.so.6 malloc` first).
            let recorded = try Bench.runStatus(
                "/usr/bin/env",
                [
                    "perf", "record", "-q", "-e", "probe_libc:malloc", "--call-graph", "dwarf,16384", "-p",
                    String(daemon.pid), "-o", record, "--", "sleep", "1",
                ])
            if recorded.status != 0 {
                print(
                    "--record: perf record failed (status \(recorded.status)), nothing recorded; the malloc probe is made"
                        + " with `perf probe -x /lib/x86_64-linux-gnu/libc.so.6 malloc`:\n"
                        + recorded.output.trimmed)
            }
        }
        let measured = try count(pid: daemon.pid, countsFile: countsFile, window: window) {
            try orderCount(daemon.database)
        }
        loaded.wait()
        _ = try? daemon.stop()
        // A few hundred megabytes the next step's `sync` would otherwise write back.
        try? FileManager.default.removeItem(atPath: directory)
        if case .failure(let error) = load.withLock({ $0 }) { throw error }
        return measured
    }

    static func row(_ round: String, _ server: String, _ counts: PerOrder) -> [String] {
        [
            round, server, Bench.format(Double(counts.orders) / counts.seconds, 0), Bench.format(counts.allocations, 1),
            Bench.format(counts.frees, 1),
            Bench.format(counts.syscalls, 2), Bench.format(counts.contextSwitches, 2),
            Bench.format(counts.cpuMicros, 1),
            Bench.format(counts.loopMicros, 1) + " (" + Bench.format(counts.loopUserMicros, 1) + ")",
            Bench.format(counts.cpuMicros - counts.loopMicros, 1) + " ("
                + Bench.format(counts.userMicros - counts.loopUserMicros, 1) + ")",
            Bench.format(counts.loopPreemptions, 2),
        ]
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
