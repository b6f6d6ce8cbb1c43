import ArgumentParser
import Foundation

/// pizzabench: pizzad's throughput, latency, CPU and memory beside the SQLite limit, the same-work ceiling, the
/// socket bound and PostgreSQL on the same machine, measured in one run, back to back (docs/PERFORMANCE.md).
///
///     swift run -c release pizzabench                # all: create, kitchen, big, replication, multicast, writer
///     swift run -c release pizzabench create --clients 1,16
///     swift run -c release pizzabench chain --shops 10,100
@main
struct Pizzabench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "pizzad beside its baselines, measured in the same run.",
        discussion: """
            Builds the C baselines (Sources/pizzabench/Baselines), starts a throw-away PostgreSQL for the peer, and \
            drives the release pizzad beside this binary over its control socket, on fresh databases in a work \
            folder that is removed at the end (and on ^C). The crash and power-cut rounds are pizzatorture's.
            """,
        subcommands: [
            All.self, Create.self, Kitchen.self, Big.self, Replication.self, Multicast.self, Writer.self,
            SoakCommand.self,
            Litestream.self, Restore.self, Board.self, Chain.self, API.self, Outbox.self, Hostile.self, WholeOrder.self,
            Reports.self,
            CountsCommand.self, InstructionsCommand.self, NIOFloorCommand.self,
        ],
        defaultSubcommand: All.self)
}

/// How long each load step runs.
struct StepOptions: ParsableArguments {
    @Option(help: "Seconds per load step.") var seconds: Double = 5

    func validate() throws { try Self.validate(seconds: seconds) }

    /// A step's `--seconds`: a finite number above 0.
    static func validate(seconds: Double) throws {
        guard seconds.isFinite, seconds > 0 else {
            throw ValidationError("--seconds needs a number above 0, not \(seconds)")
        }
    }
}

/// The order.create step's settings, for `create` and `all`.
struct CreateOptions: ParsableArguments {
    @Option(help: "Client counts, separated by commas.", transform: Self.counts) var clients = [1, 4, 16, 64]
    @Option(help: "How many times 16 clients run their four steps (the targets are read off the median).")
    var targetRounds = 3
    @Option(help: "The SQLite limit's C source.") var limitSource = Steps.baselines + "/sqlite-limit.c"

    func validate() throws {
        guard targetRounds > 0 else { throw ValidationError("--target-rounds needs a number above 0") }
    }

    static func counts(_ text: String) throws -> [Int] {
        let counts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("client counts are numbers above 0 separated by commas, not '\(text)'")
        }
        return counts
    }
}

/// Which pizzad binary `create` and `counts` measure: by default the release build beside pizzabench (which links
/// the Swift runtime in, as the Debian package's build does), or another, such as a build of the tree before a change.
struct PizzadOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The pizzad measured (default: the one beside pizzabench).",
            discussion: """
                The release build links Swift's runtime in, as debian/rules does; the package's own build \
                (full RELRO besides) is measured with swift build --scratch-path .build-package -c release \
                --static-swift-stdlib --product pizzad (the linker's flags are in docs/PERFORMANCE.md), then \
                --pizzad .build-package/release/pizzad.
                """))
    var pizzad: String?

    func validate() throws {
        if let pizzad, !FileManager.default.isExecutableFile(atPath: pizzad) {
            throw ValidationError("--pizzad \(pizzad): no executable there")
        }
    }
}

/// The big database's size, for `big`, `restore` and `all`.
struct BigOptions: ParsableArguments {
    @Option(help: "Orders in the big database.") var orders = 1_000_000

    func validate() throws {
        guard orders > 0 else { throw ValidationError("--orders needs a number above 0") }
    }
}
