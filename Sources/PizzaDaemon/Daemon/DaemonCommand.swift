/// pizzad's command line: `pizzad [--config PATH] [--database PATH] [--socket PATH] [--log-level LEVEL]`,
/// `pizzad --check-config [--config PATH]`, `pizzad restore …`, `pizzad --version`, `pizzad --help`.
struct DaemonCommand {
    enum Action {
        case run(ConfigurationLoader.Flags)
        /// Load the configuration as a start would, say whether it is good, exit (systemd's ExecReload runs it).
        case checkConfiguration(ConfigurationLoader.Flags)
        /// Bring the central PostgreSQL's schema up to date as `replication.postgres.user`, then exit.
        case migrateCentral(ConfigurationLoader.Flags)
        /// Rebuild or replace the database from a backup or from the centre, with the daemon stopped.
        case restore(RestoreOptions)
        case version
        case help
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// One option of pizzad's command line, as `--help` and `pizzad(8)` show it.
    struct Option: Sendable {
        var flag: String
        var value: String?
        var help: String
    }

    /// Every option, in the order `--help` and the manual list them.
    static let options: [Option] = [
        Option(
            flag: "--config", value: "PATH",
            help: "configuration file (default: $PIZZAD_CONFIG, /etc/pizzad/pizzad.yaml under systemd, "
                + "config/pizzad.yaml in the working directory, else built-in defaults)"),
        Option(
            flag: "--database", value: "PATH",
            help: "SQLite database (default: $PIZZAD_DATABASE, .pizzad/pizzad.sqlite)"),
        Option(flag: "--socket", value: "PATH", help: "control socket (default: $PIZZAD_SOCKET, .pizzad/pizzad.sock)"),
        Option(flag: "--log-level", value: "LEVEL", help: "trace, debug, info, notice, warning, error or critical"),
        Option(
            flag: "--check-config", value: nil,
            help: "check the configuration (file, environment and flags) as a start or a reload would read it, "
                + "print the verdict and exit: 0 good, 78 refused (ExecReload runs this)"),
        Option(
            flag: "--migrate-central", value: nil,
            help: "create or upgrade the central PostgreSQL schema (replication.postgres, connecting as the database "
                + "owner), print the version and exit: 0 done, 1 failed, 78 bad configuration"),
        Option(flag: "--version", value: nil, help: "print the version and exit"),
    ]

    static let synopsis = [
        "[--config PATH] [--database PATH] [--socket PATH] [--log-level LEVEL]",
        "--check-config [--config PATH]",
        "--migrate-central [--config PATH]",
        "restore --from-backup FILE | --from-central [--until-seq N | --until TIME] [--dry-run] [--force] "
            + "[--if-db-not-exists] [--config PATH] [--database PATH]",
        "--version",
    ]

    static let summary =
        "Tracks a pizza shop's orders in SQLite and serves them on a Unix control socket (use pizzactl)."

    static var usage: String {
        var lines = ["usage: pizzad " + synopsis[0]]
        lines += synopsis.dropFirst().map { "       pizzad " + $0 }
        lines += ["", summary, ""]
        for option in options {
            let name = option.flag + (option.value.map { " " + $0 } ?? "")
            lines.append("  " + name.padding(toLength: 19, withPad: " ", startingAt: 0) + option.help)
        }
        lines += ["", "pizzad restore: " + RestoreOptions.summary, ""]
        for option in RestoreOptions.options {
            let name = option.flag + (option.value.map { " " + $0 } ?? "")
            lines.append("  " + name.padding(toLength: 19, withPad: " ", startingAt: 0) + option.help)
        }
        return lines.joined(separator: "\n")
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        if arguments.first == "restore" { return .restore(try RestoreOptions.parse(arguments.dropFirst())) }
        var flags = ConfigurationLoader.Flags()
        var remaining = arguments[...]
        var checkOnly = false
        var migrateCentral = false
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw UsageError(description: "\(name) needs a value")
                }
                return next
            }
            switch name {
            case "--version": return .version
            case "--help", "-h": return .help
            case "--check-config": checkOnly = true
            case "--migrate-central": migrateCentral = true
            case "--config": flags.config = try value()
            case "--database": flags.database = try value()
            case "--socket": flags.socket = try value()
            case "--log-level": flags.logLevel = try value()
            default: throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        if checkOnly && migrateCentral {
            throw UsageError(description: "--check-config and --migrate-central exclude each other")
        }
        if migrateCentral { return .migrateCentral(flags) }
        return checkOnly ? .checkConfiguration(flags) : .run(flags)
    }
}
