import ArgumentParser
import Foundation
import PizzaTesting

/// The runs that are long or need more than a full run does (Litestream, PgBouncer): each on its own.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "A long steady load: memory, file descriptors, WAL and latency must stay flat.")
    @Option(help: "How long.") var minutes = 30
    @Option(help: "Clients.") var clients = 16

    func validate() throws {
        guard minutes > 0, clients > 0 else { throw ValidationError("--minutes and --clients are above 0") }
    }

    func run() async throws {
        let run = try BenchRun()
        let flat = try await Soak.run(
            binary: run.pizzad, directory: try run.folder("soak"), minutes: minutes, clients: clients)
        try run.finish(held: flat)
    }
}

struct Litestream: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "litestream", abstract: "Litestream beside pizzad: the cost and what a restore holds.")
    @OptionGroup var step: StepOptions
    @Option(help: "Clients.") var clients = 16
    @Option(help: "Rounds.") var rounds = 2

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        let held = try LitestreamBench.report(
            pizzad: run.pizzad, work: run.work + "/litestream", clients: clients, seconds: step.seconds, rounds: rounds)
        try run.finish(held: held)
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Restore drills: from a backup and from the centre.")
    @OptionGroup var big: BigOptions

    func run() async throws {
        let run = try BenchRun()
        let held = try await RestoreBench.report(pizzad: run.pizzad, work: run.work + "/restore", orders: big.orders)
        try run.finish(held: held)
    }
}

struct Board: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What 50 board pages cost the order rate.")
    @OptionGroup var step: StepOptions
    @Option(help: "Rounds.") var rounds = 3

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        let held = try BoardBench.report(
            pizzad: run.pizzad, work: run.work + "/board", seconds: step.seconds, rounds: rounds)
        try run.finish(held: held)
    }
}

struct Chain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A chain of shops shipping to one centre through PgBouncer.")
    /// At 1,000 shops a saturated centre has each shop ship a spaced batch about every 10 s, and every shop's first
    /// batch goes at once: a step of 10 s is mostly that start and the drain, not a centre that stays behind.
    @Option(help: "Seconds per saturated step (a minute: several of a shop's spaced batches, at 1,000 shops).")
    var seconds: Double = 60
    @Option(help: "Shop counts, 1 to 1000, separated by commas.", transform: Chain.shops) var shops = [10, 100, 1_000]
    @Flag(help: "Only the saturated steps: no busy evening, no faults, no targets (to try a change quickly).")
    var saturatedOnly = false
    @Option(help: "Each shop's replication.idleCheckSeconds, 1 to 3600: how long a quiet shop waits to check its link.")
    var idleCheck = 5
    @Flag(help: "Also COPY each saturated step's rows while as many shops without a shipper are fed (slower).")
    var beside = false

    func validate() throws {
        try StepOptions.validate(seconds: seconds)
        guard (1...3_600).contains(idleCheck) else {
            throw ValidationError("--idle-check needs a whole number of seconds from 1 to 3600, not \(idleCheck)")
        }
    }

    static func shops(_ text: String) throws -> [Int] {
        let counts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        guard !counts.isEmpty, counts.allSatisfy({ (1...1_000).contains($0) }) else {
            throw ValidationError("shop counts are numbers from 1 to 1000 separated by commas, not '\(text)'")
        }
        return counts
    }

    func run() async throws {
        if let reason = PgBouncerServer.unavailableReason { throw ValidationError("chain: cannot run here: \(reason)") }
        let run = try BenchRun()
        print(
            "the centre and the shops share the machine; \(Bench.format(seconds, 0)) s per saturated step"
                + "; a quiet shop checks its link every \(idleCheck) s"
                + (saturatedOnly
                    ? "\n"
                    : ", \(Bench.format(ChainBench.eveningSeconds, 0)) s of busy evening, "
                        + "\(Bench.format(ChainBench.faultSeconds, 0)) s of faults\n"))
        let held = try await ChainBench.report(
            work: run.work + "/chain", shopCounts: shops, seconds: seconds, idleCheckSeconds: idleCheck,
            beside: beside, saturatedOnly: saturatedOnly)
        try run.finish(held: held)
    }
}

struct API: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api", abstract: "The order API over TLS against the control socket, back to back.")
    @OptionGroup var step: StepOptions
    @Option(help: "Rounds.") var rounds = 2

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        let held = try await APIBench.report(
            pizzad: run.pizzad, work: run.work + "/api", seconds: step.seconds, rounds: rounds)
        try run.finish(held: held)
    }
}

struct Hostile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile",
        abstract:
            "A till's p99 while the shop's network attacks pizzad (HTTP/2 floods, connections, slowloris, tokens).")
    @OptionGroup var step: StepOptions

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        let held = try await HostileBench.report(pizzad: run.pizzad, work: run.work + "/hostile", seconds: step.seconds)
        try run.finish(held: held)
    }
}

struct WholeOrder: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whole-order",
        abstract: "A realistic order (pizzas, a drink, a side, a delivery), and paying it: CPU against an older build.")
    @OptionGroup var step: StepOptions
    @Option(help: "Rounds, the builds taking turns going first.") var rounds = 3
    @Option(help: "The older pizzad to compare with (the tree the issue measured, built in release).") var before:
        String

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        guard FileManager.default.isExecutableFile(atPath: before) else {
            throw ValidationError("--before \(before): no executable there")
        }
        let held = try WholeOrderBench.report(
            pizzad: run.pizzad, before: before, work: run.work, seconds: step.seconds, rounds: rounds)
        try run.finish(held: held)
    }
}

struct Outbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Printers and webhooks: their cost with dead receivers, delivery lag, a printer back after a while.")
    @OptionGroup var step: StepOptions
    @Option(help: "Rounds of the cost comparison.") var rounds = 4
    @Option(help: "How long the printer is off before it comes back, in seconds.") var printerOffSeconds: Double = 600

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        let held = try await OutboxBench.report(
            pizzad: run.pizzad, work: run.work + "/outbox", seconds: step.seconds, rounds: rounds,
            printerOffSeconds: printerOffSeconds)
        try run.finish(held: held)
    }
}

struct CountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "counts",
        abstract: "Per order.create: allocations, system calls, context switches, CPU of pizzad and its baselines.",
        discussion: """
            pizzad, the socket bound (socketwork.c) and SwiftNIO's floor (nio-floor: pizzad's loop side with nothing \
            of pizzad in it), each loaded by 16 clients; each one's CPU split into its event loops and the rest, and \
            into user mode and the kernel's.
            """)
    @Option(help: "Seconds of load counted.") var window: Double = 5
    @Option(help: "Rounds (each server once a round).") var rounds = 3
    @Option(help: "Also record a second of pizzad's mallocs with their call graphs into this perf.data file.")
    var record: String?
    @Option(help: "A second pizzad binary (the tree before a change), counted in each round too, back to back.")
    var before: String?
    @OptionGroup var binary: PizzadOption

    func validate() throws {
        guard window > 0, rounds > 0 else { throw ValidationError("--window and --rounds are above 0") }
        if let before, !FileManager.default.isExecutableFile(atPath: before) {
            throw ValidationError("--before \(before): no executable there (a pizzad built from the tree before)")
        }
    }

    func run() async throws {
        let run = try BenchRun(seconds: window, pizzad: binary.pizzad)
        let median = try Counts.report(
            pizzad: run.pizzad, before: before, work: run.work + "/counts", window: window, rounds: rounds,
            record: record)
        // Both targets the table prints: allocations, and the CPU per order against the bound.
        try run.finish(
            held: (median?.perOrder.allocations ?? .infinity) <= 50 && (median?.cpuTimesBound ?? .infinity) <= 1.3)
    }
}

struct InstructionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "instructions",
        abstract:
            "Per order.create: user-mode instructions of pizzad, the socket bound and SwiftNIO's floor (callgrind).",
        discussion: """
            Counts that do not drift with the machine's speed or load: each server runs under Valgrind's callgrind \
            (pizzad from a copy without its debug information, which Valgrind 3.19 cannot read), loaded by each \
            --clients count in turn; its counters are zeroed after a warm-up and dumped after the window. Each thread \
            is counted apart: the event loops' instructions are printed beside SwiftNIO's floor's (nio-floor, loaded \
            by the C till), whose difference is pizzad's own work on its loops. Needs valgrind and binutils.
            """)
    @Option(help: "Seconds of load counted (under Valgrind, 100 to 300 orders a second).") var window: Double = 20
    @Option(
        help: "Client counts, separated by commas (one makes every group commit one change).",
        transform: CreateOptions.counts)
    var clients = [1, 16]
    @Option(help: "How many of each server's functions to list (at the first client count).") var top = 15
    @Option(help: "A second pizzad binary (the tree before a change), counted too.") var before: String?
    @Option(
        help: """
            The order, the socket bound's too: two-pizzas (with SwiftNIO's floor), realistic (a shop's whole order, \
            as whole-order makes it) or paid (that order made, then paid).
            """)
    var order = Instructions.Order.twoPizzas
    @OptionGroup var binary: PizzadOption

    func validate() throws {
        guard window > 0, top >= 0 else { throw ValidationError("--window is above 0 and --top not below 0") }
        if let before, !FileManager.default.isExecutableFile(atPath: before) {
            throw ValidationError("--before \(before): no executable there (a pizzad built from the tree before)")
        }
    }

    func run() async throws {
        if let reason = Instructions.unavailableReason {
            print("pizzabench instructions: skipped, \(reason)")
            return
        }
        let run = try BenchRun(pizzad: binary.pizzad)
        try Instructions.report(
            pizzad: run.pizzad, before: before, clients: clients, work: run.work + "/instructions", window: window,
            top: top, order: order)
        try run.finish()
    }
}

struct Reports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "A year of a busy shop with a Z each day: report.x, a Z, and order.create beside an X every 5 s.")
    @OptionGroup var step: StepOptions
    @Option(help: "Orders in the year.") var orders = 150_000
    @Option(help: "Days, each closed with a Z.") var days = 365
    @Option(help: "Rounds of the load comparison.") var rounds = 3

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        let held = try await ReportsBench.report(
            pizzad: run.pizzad, work: run.work + "/reports", migrations: Steps.migrations, orders: orders, days: days,
            seconds: step.seconds, rounds: rounds)
        try run.finish(held: held)
    }
}
