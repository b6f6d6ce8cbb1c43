import ArgumentParser
import Foundation
import PizzaTesting

/// The full run: every step that needs nothing but this machine, in order, and the headline ratio.
struct All: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "create, kitchen, big, replication, multicast and writer, in one run (the default).")

    @OptionGroup var step: StepOptions
    @OptionGroup var create: CreateOptions
    @OptionGroup var big: BigOptions

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        var createStep = CreateStep(run: run, seconds: step.seconds, options: create)
        try createStep.measure()
        var peakRSS = createStep.peakRSS
        peakRSS = max(peakRSS, try await KitchenStep.run(run, seconds: step.seconds))
        peakRSS = max(peakRSS, try await BigStep.run(run, orders: big.orders))
        try await ReplicationStep.run(run, seconds: step.seconds)
        MulticastStep.run()
        try await WriterStep.run(run)
        print("peak RSS of pizzad through the whole run: \(Bench.format(peakRSS, 1)) MiB")
        createStep.printHeadline()
        try run.finish()
    }
}

struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "order.create from N clients beside the SQLite limit, the ceiling, the socket bound and PostgreSQL.")

    @OptionGroup var step: StepOptions
    @OptionGroup var create: CreateOptions
    @OptionGroup var binary: PizzadOption

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds, pizzad: binary.pizzad)
        var createStep = CreateStep(run: run, seconds: step.seconds, options: create)
        try createStep.measure()
        createStep.printHeadline()
        try run.finish()
    }
}

struct Kitchen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A mixed kitchen load with an event watcher.")
    @OptionGroup var step: StepOptions

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        _ = try await KitchenStep.run(run, seconds: step.seconds)
        try run.finish()
    }
}

struct Big: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start-up and reads on a big database.")
    @OptionGroup var big: BigOptions

    func run() async throws {
        let run = try BenchRun()
        _ = try await BigStep.run(run, orders: big.orders)
        try run.finish()
    }
}

struct Replication: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Shipping to a central PostgreSQL, on and off.")
    @OptionGroup var step: StepOptions

    func run() async throws {
        let run = try BenchRun(seconds: step.seconds)
        try await ReplicationStep.run(run, seconds: step.seconds)
        try run.finish()
    }
}

struct Multicast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Multicast dispatch, ns per delegate call.")

    func run() async throws { MulticastStep.run() }
}

struct Writer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The storage path alone, in this process.")

    func run() async throws {
        let run = try BenchRun()
        try await WriterStep.run(run)
        try run.finish()
    }
}
