public import Logging
public import PizzaAPI
public import PizzaCore
public import PizzaOutbox
public import PizzaReplication
public import PizzaStorage
public import SQLite

/// Everything pizzad is configured with, after layering flags, environment, file and built-in defaults.
public struct DaemonConfiguration: Sendable {
    /// The configuration file that was read, if any.
    public var file: String?
    /// The SQLite database file.
    public var databasePath: String
    /// The migrations folder named in configuration, if any (otherwise it is searched for).
    public var migrationsPath: String?
    /// `PRAGMA synchronous`: `FULL` (default) or `EXTRA`; lower levels can lose acknowledged orders.
    public var synchronous: ConnectionSettings.Synchronous
    /// How long the database waits for a lock, in milliseconds.
    public var busyTimeoutMilliseconds: Int
    /// Who checkpoints the WAL (`database.checkpoints`): pizzad, or another program such as Litestream.
    public var checkpoints: SQLiteOrderStore.CheckpointPolicy = .pizzad
    /// The control socket's path.
    public var socketPath: String
    /// The socket file's permission bits.
    public var socketMode: UInt32
    /// The group the socket file is given, if any.
    public var socketGroup: String?
    /// At most this many connections at once; more are answered `overloaded`.
    public var maxConnections: Int
    /// How long shutdown waits for requests under way.
    public var shutdownGraceSeconds: Int
    /// The log level.
    public var logLevel: Logger.Level
    /// Who may change orders: user names and `@groups`.
    public var operators: [String]
    /// Who may read: user names and `@groups`.
    public var readers: [String]
    /// The menu.
    public var menu: Menu
    /// Where the HTTP metrics endpoint listens (`metrics.listen`); nil keeps it off unless systemd passes a socket
    /// named `metrics`.
    public var metricsListen: ListenAddress? = nil
    /// The kitchen's board (`board.*`): where its page listens (nil: off unless systemd passes `board`), and how it
    /// shows tickets.
    public var board = BoardSettings()
    /// Shipping to a central PostgreSQL (`replication.*`); nil keeps it off.
    public var replication: ReplicationConfiguration? = nil
    /// The order API (`api.*`): off unless `api.listen` is set or systemd passes a socket named `api`.
    public var api = APISettings()
    /// What leaves the shop (`printers`, `webhooks`, `outbox.*`): nothing unless configured.
    public var outbox = OutboxSettings()
    /// Every key's value as it was given, before defaults (``ConfigurationValues/given()``): what a reload compares.
    var given: [ConfigurationKey: String] = [:]
}

extension DaemonConfiguration {
    /// The daemon's own keys (`database.*`, `socket.*`, `shutdown.*`, `log.*`, `access.*`, `metrics.*`), and the
    /// parts that read theirs: the board and replication. Paths not set default to systemd's folders when it
    /// passes them (`STATE_DIRECTORY`, `RUNTIME_DIRECTORY`), else to `.pizzad/` here.
    init(
        reading values: ConfigurationValues, file: String?, menu: Menu, environment: [String: String]
    ) throws(ConfigurationError) {
        let stateDirectory = environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
        let runtimeDirectory = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first.map(String.init)
        self.init(
            file: file,
            databasePath: values.text(.databasePath) ?? stateDirectory.map { "\($0)/pizzad.sqlite" }
                ?? ".pizzad/pizzad.sqlite",
            migrationsPath: values.text(.databaseMigrations),
            synchronous: try values.defaulted(.databaseSynchronous) {
                let level = ConnectionSettings.Synchronous(rawValue: $0.uppercased())
                return level == .full || level == .extra ? level : nil
            },
            busyTimeoutMilliseconds: try values.integer(.databaseBusyTimeout),
            checkpoints: try values.defaulted(.databaseCheckpoints) {
                SQLiteOrderStore.CheckpointPolicy(rawValue: $0.lowercased())
            },
            socketPath: values.text(.socketPath) ?? runtimeDirectory.map { "\($0)/pizzad.sock" }
                ?? ".pizzad/pizzad.sock",
            socketMode: try values.defaulted(.socketMode) { ConfigurationSchema.parseMode($0) },
            socketGroup: values.text(.socketGroup),
            maxConnections: try values.integer(.socketMaxConnections),
            shutdownGraceSeconds: try values.integer(.shutdownGraceSeconds),
            logLevel: try values.defaulted(.logLevel) { Logger.Level(rawValue: $0.lowercased()) },
            operators: try values.principals(.accessOperators),
            readers: try values.principals(.accessReaders),
            menu: menu,
            metricsListen: try values.setting(.metricsListen) { ListenAddress(parsing: $0) },
            board: try BoardSettings(reading: values),
            replication: try ReplicationConfiguration(reading: values),
            api: try APISettings(reading: values),
            outbox: try OutboxConfiguration.settings(reading: values, tree: values.tree, file: file ?? "", menu: menu),
            given: values.given())
    }
}
