import ArgumentParser
import Foundation
import PizzaCore

/// `pizzad restore`: rebuilds the database pizzad would open from a backup or from the centre, with the daemon
/// stopped (CONTRACT section 14).
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract:
            "Rebuild the database pizzad would open (--database, $PIZZAD_DATABASE, the configuration) from a backup or "
            + "from the central PostgreSQL, with the daemon stopped.")

    @Option(
        name: .customLong("from-backup"),
        help: ArgumentHelp(
            "Restore from a copy made by pizzactl db backup; its integrity, schema and audit chain are checked "
                + "before anything is replaced.", valueName: "FILE"))
    var fromBackup: String?

    @Flag(
        name: .customLong("from-central"),
        help: ArgumentHelp(
            "Rebuild this shop (replication.shopId) from the central PostgreSQL's entries, every hash recomputed; "
                + "shipping resumes where the centre is."))
    var fromCentral = false

    @Option(
        name: .customLong("until-seq"),
        help: ArgumentHelp("Restore the history up to and including entry N.", valueName: "N"))
    var untilSeq: Int64?

    @Option(
        name: .customLong("until"),
        help: ArgumentHelp(
            "Restore the history up to the last entry written at or before TIME (2026-11-25T18:00:00Z).",
            valueName: "TIME"))
    var until: String?

    @Flag(name: .customLong("dry-run"), help: "Check and say what would be restored; change nothing.")
    var dryRun = false

    @Flag(
        name: .customLong("force"),
        help: "Replace a database in place; its files are moved aside with the time in their name, never deleted.")
    var force = false

    @Flag(
        name: .customLong("if-db-not-exists"),
        help: "Do nothing (exit 0) when a database is in place: for ExecStartPre= on a new shop machine.")
    var ifNotExists = false

    /// `--config` and `--database` (the database to restore), as for the daemon, before or after `restore`.
    @ParentCommand var daemon: PizzadCommand

    func validate() throws {
        for (flag, value) in [("--socket", daemon.options.socket), ("--log-level", daemon.options.logLevel)]
        where value != nil {
            throw ValidationError("restore takes no \(flag): it restores the database of --database or --config")
        }
        if fromBackup == nil && !fromCentral {
            throw ValidationError("say where from: --from-backup FILE or --from-central")
        }
        if fromBackup != nil && fromCentral {
            throw ValidationError("give one of --from-backup FILE and --from-central")
        }
        if untilSeq != nil && until != nil { throw ValidationError("give one of --until-seq and --until") }
        if let untilSeq, untilSeq < 0 {
            throw ValidationError("--until-seq takes an entry number (0 or more), not '\(untilSeq)'")
        }
        if let until, Timestamp(iso8601: until) == nil {
            throw ValidationError(
                "--until takes a UTC time like 2026-11-25T18:00:00Z or a date 2026-11-25, not '\(until)'")
        }
    }

    /// The parsed request.
    var options: RestoreOptions {
        var point = RestoreOptions.Point.end
        if let untilSeq { point = .seq(untilSeq) }
        if let time = until.flatMap(Timestamp.init(iso8601:)) { point = .time(time) }
        var options = RestoreOptions(
            source: fromBackup.map(RestoreOptions.Source.backup) ?? .central, point: point, dryRun: dryRun,
            force: force, ifNotExists: ifNotExists)
        options.flags = ConfigurationLoader.Flags(config: daemon.options.config, database: daemon.options.database)
        return options
    }

    func run() async throws {
        let code = await Restore.run(options, environment: ProcessInfo.processInfo.environment)
        if code != Daemon.ExitCode.ok { throw ExitCode(code) }
    }
}
