/// pizzad's command line: `pizzad [--config PATH] [--database PATH] [--socket PATH] [--log-level LEVEL]`,
/// `pizzad --check-config [--config PATH]`, `pizzad --version`, `pizzad --help`.
struct DaemonCommand {
    enum Action {
        case run(ConfigurationLoader.Flags)
        /// Load the configuration as a start would, say whether it is good, exit (systemd's ExecReload runs it).
        case checkConfiguration(ConfigurationLoader.Flags)
        /// Bring the central PostgreSQL's schema up to date as `replication.postgres.user`, then exit.
        case migrateCentral(ConfigurationLoader.Flags)
        case version
        case help
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: pizzad [--config PATH] [--database PATH] [--socket PATH] [--log-level LEVEL]
               pizzad --check-config [--config PATH]
               pizzad --migrate-central [--config PATH]
               pizzad --version

        Tracks a pizza shop's orders in SQLite and serves them on a Unix control socket (use pizzactl).

          --config PATH      configuration file (default: $PIZZAD_CONFIG, /etc/pizzad/pizzad.yaml under systemd,
                             config/pizzad.yaml in the working directory, else built-in defaults)
          --database PATH    SQLite database (default: $PIZZAD_DATABASE, .pizzad/pizzad.sqlite)
          --socket PATH      control socket (default: $PIZZAD_SOCKET, .pizzad/pizzad.sock)
          --log-level LEVEL  trace, debug, info, notice, warning, error or critical
          --check-config     check the configuration (file, environment and flags) as a start or a reload would
                             read it, print the verdict and exit: 0 good, 78 refused (ExecReload runs this)
          --migrate-central  create or upgrade the central PostgreSQL schema (replication.postgres, connecting as
                             the database owner), print the version and exit: 0 done, 1 failed, 78 bad configuration
          --version          print the version and exit
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
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
