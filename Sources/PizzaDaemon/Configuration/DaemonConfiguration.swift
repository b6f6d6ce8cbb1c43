public import Logging
public import PizzaCore
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
}

/// How the kitchen's boards (the page and `pizzactl board`) show tickets.
public struct BoardSettings: Sendable, Equatable {
    public var listen: ListenAddress? = nil
    public var showCustomer = true
    /// Seconds in a status after which a ticket is yellow (warn) and red (late), for the board's statuses.
    public var thresholds: [OrderStatus: (warn: Int, late: Int)] = Dictionary(
        uniqueKeysWithValues: ConfigurationSchema.boardThresholdDefaults.map {
            (OrderStatus(rawValue: $0.status)!, (warn: $0.warn, late: $0.late))
        })

    public init() {}

    public static func == (lhs: BoardSettings, rhs: BoardSettings) -> Bool {
        lhs.listen == rhs.listen && lhs.showCustomer == rhs.showCustomer
            && lhs.thresholds.mapValues { [$0.warn, $0.late] } == rhs.thresholds.mapValues { [$0.warn, $0.late] }
    }

    /// `{"showCustomer":…,"thresholds":{"placed":[warn,late],…}}`, for the page and `board.settings`.
    public var json: String {
        let statuses = ConfigurationSchema.boardThresholdDefaults.map(\.status)
        let marks = statuses.compactMap { name -> String? in
            guard let status = OrderStatus(rawValue: name), let value = thresholds[status] else { return nil }
            return "\"\(name)\":[\(value.warn),\(value.late)]"
        }
        return "{\"showCustomer\":\(showCustomer),\"thresholds\":{\(marks.joined(separator: ","))}}"
    }
}
