import ArgumentParser
import Foundation
import PizzaTesting

/// pizzatorture: the long rounds that try to make pizzad lose an acknowledged order, against the release build
/// beside it. `crash`: load with a SIGKILL (every fifth a SIGTERM) at a random moment, then hostile clients.
/// `powercut`: load on a FUSE file system that forgets what was not synced, cut at a random moment. The test
/// suite runs short forms of both; these are the full ones (docs/TESTING.md).
@main
struct Pizzatorture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Crash and power-cut rounds against the release pizzad beside this binary.",
        subcommands: [Crash.self, PowerCut.self])

    /// The release pizzad beside this binary.
    static func pizzad() throws -> String {
        let path = BuiltPrograms.pizzad
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("no pizzad beside this binary (\(path)); build it: swift build -c release")
        }
        return path
    }

    /// The repository's root, for the power-cut file system's source.
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}

extension Pizzatorture {
    struct Crash: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rounds of load with a SIGKILL at a random moment, then hostile clients beside legitimate ones.")

        @Option(help: "Crash rounds.") var rounds = 20
        @Option(help: "Hostile lines sent over 50 connections.") var hostileLines = 100_000

        func validate() throws {
            guard rounds > 0, hostileLines > 0 else {
                throw ValidationError("--rounds and --hostile-lines are above 0")
            }
        }

        func run() async throws {
            let pizzad = try Pizzatorture.pizzad()
            let work = try TemporaryFolder("pizzatorture")
            print("crash loop: \(rounds) rounds of load with a SIGKILL (every fifth a SIGTERM) at a random moment,")
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
                binary: pizzad, directory: work.path, rounds: rounds, clients: 8, hostileLines: hostileLines)
            let hostile = summary.hostile
            print(
                "rounds \(summary.rounds), requests \(summary.requests), faults injected \(summary.faults), "
                    + "acknowledged orders \(summary.acknowledged), acknowledged lost \(summary.lost), "
                    + "unexpected exits \(summary.unexpectedExits)")
            print(
                "hostile lines \(hostile.lines), connections answered to the end \(hostile.survived)/"
                    + "\(hostile.connections), idle connections \(hostile.idle), silent client held back "
                    + (hostile.silentClientHeldBack ? "yes" : "no") + ", legitimate requests served \(hostile.served), "
                    + "daemon peak RSS \(String(format: "%.1f", hostile.peakRSSMiB)) MiB")
            for problem in summary.problems { print("problem: \(problem)") }
            let clean = summary.lost == 0 && summary.unexpectedExits == 0 && summary.problems.isEmpty
            print(clean ? "crash loop: clean" : "crash loop: FAILED")
            if !clean { throw ExitCode.failure }
        }
    }

    struct PowerCut: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "powercut",
            abstract: "Rounds of load on powercutfs, each cut at a random moment with pizzad killed, then checked.")

        @Option(help: "Power cuts.") var rounds = 50

        func validate() throws {
            guard rounds > 0 else { throw ValidationError("--rounds is above 0") }
        }

        func run() async throws {
            let pizzad = try Pizzatorture.pizzad()
            if let reason = PowerCutFileSystem.unavailableReason {
                print("power cuts: cannot run here: \(reason)")
                throw ExitCode.failure
            }
            let work = try TemporaryFolder("pizzatorture")
            let fileSystem = try PowerCutFileSystem.build(
                source: Pizzatorture.repository + "/Tests/PowerCut/powercutfs.c", into: BuiltPrograms.directory)
            print(
                "power cuts: \(rounds) rounds of load (8 clients creating, placing and advancing, one taking backups) on powercutfs,"
            )
            print(
                "each cut at a random moment (50-1500 ms after the round's first acknowledgements) with pizzad killed at once,"
            )
            print(
                "then remount, restart and the checks: acknowledged orders, transitions, audit entries and backups, integrity,"
            )
            print("foreign keys, nothing half there, audit.verify")
            let trial = try PowerCutTrial(pizzad: pizzad, fileSystem: fileSystem, root: work.path + "/powercut")
            try trial.prepareFolders()
            let started = ContinuousClock.now
            for round in 0..<rounds { try await trial.round(round, clients: 8, cutWithin: 50...1500) }
            let summary = try await trial.finish()
            print(
                "rounds \(summary.rounds), acknowledged orders \(summary.acknowledgedOrders), transitions "
                    + "\(summary.acknowledgedTransitions), backups \(summary.acknowledgedBackups), lost \(summary.lost); "
                    + "unsynced bytes dropped \(summary.droppedBytes), torn writes injected \(summary.tornWrites), "
                    + "names lost \(summary.lostEntries); \(ContinuousClock.now - started)")
            for problem in summary.problems { print("problem: \(problem)") }
            let clean = summary.lost == 0 && summary.problems.isEmpty && summary.droppedBytes > 0
            print(
                clean
                    ? "power cuts: clean"
                    : summary.droppedBytes == 0
                        ? "power cuts: FAILED (nothing was dropped: the run proved nothing)" : "power cuts: FAILED")
            if !clean { throw ExitCode.failure }
        }
    }
}
