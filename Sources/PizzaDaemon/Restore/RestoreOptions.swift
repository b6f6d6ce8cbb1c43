import PizzaCore

/// `pizzad restore`'s command line.
struct RestoreOptions: Sendable {
    enum Source: Sendable, Equatable {
        /// A copy made by `db.backup` (or any pizzad database file).
        case backup(String)
        /// The central PostgreSQL this shop ships to (`replication.postgres`).
        case central
    }

    /// How much of the history to restore.
    enum Point: Sendable, Equatable {
        case end
        /// Up to and including this sequence number.
        case seq(Int64)
        /// Up to the last entry written at or before this time.
        case time(Timestamp)

        var text: String {
            switch self {
            case .end: "up to the end"
            case .seq(let seq): "up to entry \(seq)"
            case .time(let time): "at or before \(time)"
            }
        }
    }

    var source: Source
    var point: Point = .end
    var dryRun = false
    var force = false
    var ifNotExists = false
    var flags = ConfigurationLoader.Flags()

    static let summary =
        "rebuilds the database pizzad would open (--database, $PIZZAD_DATABASE, the configuration) from a backup or "
        + "from the central PostgreSQL, with the daemon stopped."

    /// Every option of `pizzad restore`, in the order `--help` and the manual list them.
    static let options: [DaemonCommand.Option] = [
        .init(
            flag: "--from-backup", value: "FILE",
            help: "restore from a copy made by pizzactl db backup; its integrity, schema and audit chain are checked "
                + "before anything is replaced"),
        .init(
            flag: "--from-central", value: nil,
            help: "rebuild this shop (replication.shopId) from the central PostgreSQL's entries, every hash "
                + "recomputed; shipping resumes where the centre is"),
        .init(flag: "--until-seq", value: "N", help: "restore the history up to and including entry N"),
        .init(
            flag: "--until", value: "TIME",
            help: "restore the history up to the last entry written at or before TIME (2026-11-25T18:00:00Z)"),
        .init(flag: "--dry-run", value: nil, help: "check and say what would be restored; change nothing"),
        .init(
            flag: "--force", value: nil,
            help: "replace a database in place; its files are moved aside with the time in their name, never deleted"),
        .init(
            flag: "--if-db-not-exists", value: nil,
            help: "do nothing (exit 0) when a database is in place: for ExecStartPre= on a new shop machine"),
        .init(flag: "--config", value: "PATH", help: "configuration file, as for pizzad"),
        .init(flag: "--database", value: "PATH", help: "the database to restore, as for pizzad"),
    ]

    static func parse(_ arguments: ArraySlice<String>) throws(DaemonCommand.UsageError) -> RestoreOptions {
        var remaining = arguments
        var source: Source?
        var point = Point.end
        var options = RestoreOptions(source: .central)
        func usage(_ text: String) -> DaemonCommand.UsageError { DaemonCommand.UsageError(description: text) }
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(DaemonCommand.UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw usage("restore: \(name) needs a value")
                }
                return next
            }
            func setSource(_ new: Source) throws(DaemonCommand.UsageError) {
                guard source == nil else { throw usage("restore: give one of --from-backup FILE and --from-central") }
                source = new
            }
            func setPoint(_ new: Point) throws(DaemonCommand.UsageError) {
                guard point == .end else { throw usage("restore: give one of --until-seq and --until") }
                point = new
            }
            switch name {
            case "--from-backup": try setSource(.backup(try value()))
            case "--from-central": try setSource(.central)
            case "--until-seq":
                let text = try value()
                guard let seq = Int64(text), seq >= 0 else {
                    throw usage("restore: --until-seq takes an entry number (0 or more), not '\(text)'")
                }
                try setPoint(.seq(seq))
            case "--until":
                let text = try value()
                guard let time = Timestamp(iso8601: text) else {
                    throw usage(
                        "restore: --until takes a UTC time like 2026-11-25T18:00:00Z or a date 2026-11-25, not '\(text)'"
                    )
                }
                try setPoint(.time(time))
            case "--dry-run": options.dryRun = true
            case "--force": options.force = true
            case "--if-db-not-exists": options.ifNotExists = true
            case "--config": options.flags.config = try value()
            case "--database": options.flags.database = try value()
            default: throw usage("restore: unknown argument '\(argument)'")
            }
        }
        guard let source else { throw usage("restore: say where from: --from-backup FILE or --from-central") }
        options.source = source
        options.point = point
        return options
    }
}
