public import ArgumentParser
import Foundation
import PizzaProtocol
import SQLite

/// `pizzad`'s command line on argument-parser: the daemon itself when no subcommand is named, `restore`,
/// `check-config` and `migrate-central` beside it. `--help`, `pizzad(8)` (``ManualPages``, from ``toolInfo``) and
/// the parsing are one set of declarations.
public struct PizzadCommand: AsyncParsableCommand {
    /// The name, the help, the version and the subcommands.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "pizzad",
            abstract: "Tracks a pizza shop's orders in SQLite and serves them on a Unix control socket (use pizzactl).",
            usage: """
                pizzad [--config <PATH>] [--database <PATH>] [--socket <PATH>] [--log-level <LEVEL>]
                  pizzad restore|check-config|migrate-central [<options>]
                """,
            version:
                "pizzad \(PizzadVersion.current) (protocol \(ProtocolVersion.current), SQLite \(Database.libraryVersion))",
            subcommands: [RestoreCommand.self, CheckConfigCommand.self, MigrateCentralCommand.self])
    }

    /// The settings' flags, for the daemon and, given before or after their name, its subcommands.
    @OptionGroup var options: ConfigurationOptions

    /// Before the subcommands were, `pizzad --check-config`: still accepted, not shown.
    @Flag(name: .customLong("check-config"), help: .hidden) var checkConfig = false

    /// Before the subcommands were, `pizzad --migrate-central`: still accepted, not shown.
    @Flag(name: .customLong("migrate-central"), help: .hidden) var migrateCentral = false

    /// The command before argument-parser fills it in.
    public init() {}

    /// Parses the process's arguments and runs the command they name, exiting as argument-parser does on an error
    /// (64 for a usage error) or with the command's own exit code. What `AsyncParsableCommand.main()` does, spelled
    /// out: from top-level code that call resolves to the synchronous `main()`, which would not run the daemon.
    public static func runFromCommandLine() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// Refuses the two old flags together.
    public func validate() throws {
        if checkConfig && migrateCentral {
            throw ValidationError("--check-config and --migrate-central exclude each other")
        }
    }

    /// Runs the daemon, or the old flags' check or migration; exits with their code.
    public func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let loader = ConfigurationLoader(flags: options.flags, environment: environment)
        let code: Int32
        if checkConfig {
            code = await Daemon.checkConfiguration(loader)
        } else if migrateCentral {
            code = await Daemon.migrateCentral(loader)
        } else {
            code = await Daemon.serve(loader)
        }
        if code != Daemon.ExitCode.ok { throw ExitCode(code) }
    }
}

/// `pizzad check-config`: loads the configuration as a start or a reload would, says whether it is good, exits
/// (systemd's `ExecReload=` runs it).
struct CheckConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract:
            "Check the configuration (file, environment and flags) as a start or a reload would read it, print the "
            + "verdict and exit: 0 good, 78 refused (ExecReload runs this).")

    /// `--config`, `--database`, `--socket` and `--log-level`, given before or after the subcommand's name.
    @ParentCommand var daemon: PizzadCommand

    func run() async throws {
        let loader = ConfigurationLoader(
            flags: daemon.options.flags, environment: ProcessInfo.processInfo.environment)
        let code = await Daemon.checkConfiguration(loader)
        if code != Daemon.ExitCode.ok { throw ExitCode(code) }
    }
}

/// `pizzad migrate-central`: brings the central PostgreSQL's schema up to this pizzad's, then exits.
struct MigrateCentralCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-central",
        abstract:
            "Create or upgrade the central PostgreSQL schema (replication.postgres, connecting as the database owner), "
            + "print the version and exit: 0 done, 1 failed, 78 bad configuration.")

    /// `--config`, `--database`, `--socket` and `--log-level`, given before or after the subcommand's name.
    @ParentCommand var daemon: PizzadCommand

    func run() async throws {
        let loader = ConfigurationLoader(
            flags: daemon.options.flags, environment: ProcessInfo.processInfo.environment)
        let code = await Daemon.migrateCentral(loader)
        if code != Daemon.ExitCode.ok { throw ExitCode(code) }
    }
}

extension PizzadCommand {
    /// The whole command line as argument-parser describes it (the JSON its generate-manual reads), for
    /// ``ManualPages``: `_dumpHelp` is argument-parser's own entry to that description, used by its test helpers.
    static var toolInfo: CommandDescription {
        struct Dump: Decodable { var command: CommandDescription }
        do {
            return try JSONDecoder().decode(Dump.self, from: Data(_dumpHelp().utf8)).command
        } catch {
            preconditionFailure("argument-parser's description of pizzad does not decode: \(error)")
        }
    }
}

/// A command as argument-parser's dumped help describes it (its `ToolInfoV0` schema), in the fields the manual uses.
struct CommandDescription: Decodable {
    /// One option, flag or argument.
    struct Argument: Decodable {
        /// `--config`'s name: `config`, of kind `long`.
        struct Name: Decodable {
            var kind: String
            var name: String
        }

        var kind: String
        var shouldDisplay: Bool
        var preferredName: Name?
        var valueName: String?
        var abstract: String?
    }

    var commandName: String
    var abstract: String?
    var shouldDisplay: Bool = true
    var subcommands: [CommandDescription]?
    var arguments: [Argument]?

    /// The arguments `--help` shows that have a long name, `--help` itself apart: `(name, value name or nil, help)`.
    var longOptions: [(name: String, value: String?, help: String)] {
        (arguments ?? []).compactMap { argument in
            guard argument.shouldDisplay, let name = argument.preferredName, name.kind == "long", name.name != "help"
            else { return nil }
            let value = argument.kind == "option" ? argument.valueName ?? "VALUE" : nil
            return (name.name, value, argument.abstract ?? "")
        }
    }
}
