import Logging

/// Every key of `pizzad.yaml`, one constant each: the schema lists them (``ConfigurationSchema/keys``), the parts of
/// the daemon read them (`values.integer(.socketMaxConnections)`), flags and environment variables set them, the
/// reload sorts them and the manual prints them, each from this one place.
extension ConfigurationKey {
    /// `database.path`.
    static let databasePath = ConfigurationKey(
        path: "database.path", kind: .text,
        defaultText:
            "$STATE_DIRECTORY/pizzad.sqlite under systemd (/var/lib/pizzad), else .pizzad/pizzad.sqlite",
        allowed: "a file path", applied: .onRestart, summary: "The SQLite database file.",
        flag: Flag(name: "database", valueName: "PATH"), environmentAliases: ["PIZZAD_DATABASE"])

    /// `database.migrations`.
    static let databaseMigrations = ConfigurationKey(
        path: "database.migrations", kind: .text,
        defaultText:
            "../share/pizzad/migrations beside the binary (/usr/share/pizzad/migrations), else ./migrations",
        allowed: "a folder of NNNN_name.sql files", applied: .onRestart,
        summary: "The folder of numbered migrations applied at start.", environmentAliases: ["PIZZAD_MIGRATIONS"])

    /// `database.synchronous`.
    static let databaseSynchronous = ConfigurationKey(
        path: "database.synchronous", kind: .text, defaultValue: "FULL",
        allowed: "FULL, EXTRA (lower levels can lose acknowledged orders on power loss)", applied: .onRestart,
        summary: "SQLite's PRAGMA synchronous. Both levels keep every acknowledged order through a power cut.")

    /// `database.busyTimeoutMs`.
    static let databaseBusyTimeout = ConfigurationKey(
        path: "database.busyTimeoutMs",
        kind: .integer(range: 0...600_000, noun: "a whole number of milliseconds"),
        defaultValue: "5000", allowed: "", applied: .onRestart,
        summary: "How long a writer waits for a lock another process holds (an sqlite3 shell, a backup).")

    /// `database.checkpoints`.
    static let databaseCheckpoints = ConfigurationKey(
        path: "database.checkpoints", kind: .text, defaultValue: "pizzad",
        allowed: "pizzad, external", applied: .onRestart,
        summary: "Who copies the write-ahead log back into the database file: pizzad's own checkpointer, or "
            + "another program that reads the WAL (external: Litestream, which then checkpoints; pizzad only does "
            + "when it stops). See OPERATIONS.md, \"Backups and restore\".")

    /// `socket.path`.
    static let socketPath = ConfigurationKey(
        path: "socket.path", kind: .text,
        defaultText: "$RUNTIME_DIRECTORY/pizzad.sock under systemd (/run/pizzad), else .pizzad/pizzad.sock",
        allowed: "a file path", applied: .onRestart,
        summary: "The control socket. Ignored when systemd passes the socket (pizzad.socket).",
        flag: Flag(name: "socket", valueName: "PATH"), environmentAliases: ["PIZZAD_SOCKET"])

    /// `socket.mode`.
    static let socketMode = ConfigurationKey(
        path: "socket.mode", kind: .text, defaultValue: "0660",
        allowed:
            "octal permission bits such as 0660 (from 0\(String(ConfigurationSchema.socketModes.lowerBound, radix: 8)) to "
            + "0\(String(ConfigurationSchema.socketModes.upperBound, radix: 8)))", applied: .onRestart,
        summary: "The socket file's permission bits.")

    /// `socket.group`.
    static let socketGroup = ConfigurationKey(
        path: "socket.group", kind: .text, allowed: "a group name", applied: .onRestart,
        summary:
            "Gives the socket file to this group, so that its members can connect (they still need a role).")

    /// `socket.maxConnections`.
    static let socketMaxConnections = ConfigurationKey(
        path: "socket.maxConnections", kind: .integer(range: 1...100_000, noun: "a whole number"),
        defaultValue: "1024", allowed: "", applied: .onRestart,
        summary: "Connections beyond this many are answered overloaded and closed.")

    /// `shutdown.graceSeconds`.
    static let shutdownGraceSeconds = ConfigurationKey(
        path: "shutdown.graceSeconds", kind: .integer(range: 0...300, noun: "a whole number of seconds"),
        defaultValue: "10", allowed: "", applied: .onRestart,
        summary: "On SIGTERM, how long requests under way may take to finish before connections close.")

    /// `metrics.listen`.
    static let metricsListen = ConfigurationKey(
        path: "metrics.listen", kind: .text, defaultText: "off",
        allowed:
            "HOST:PORT with an IP address or localhost, e.g. 127.0.0.1:9464 or [::1]:9464 (port 0: any free one)",
        applied: .onRestart,
        summary:
            "The HTTP endpoint for Prometheus (GET /metrics, /healthz, /readyz). Under systemd, enable "
            + "pizzad-metrics.socket instead.")

    /// `board.listen`.
    static let boardListen = ConfigurationKey(
        path: "board.listen", kind: .text, defaultText: "off",
        allowed:
            "HOST:PORT with an IP address or localhost, e.g. 127.0.0.1:9465 or [::1]:9465 (port 0: any free one)",
        applied: .onRestart,
        summary:
            "The kitchen's board page (GET /board, kept live by GET /board/events), read-only. Under systemd, "
            + "enable pizzad-board.socket instead.")

    /// `board.showCustomer`.
    static let boardShowCustomer = ConfigurationKey(
        path: "board.showCustomer", kind: .text, defaultValue: "true", allowed: "true, false",
        applied: .onRestart,
        summary: "Whether the board page shows customers' names (false for a screen that faces the room).")

    /// `log.level`.
    static let logLevel = ConfigurationKey(
        path: "log.level", kind: .text, defaultValue: "info",
        allowed: Logger.Level.allCases.map(\.rawValue).joined(separator: ", "), applied: .onReload,
        summary: "The lowest level logged.", flag: Flag(name: "log-level", valueName: "LEVEL"))

    /// `access.operators`.
    static let accessOperators = ConfigurationKey(
        path: "access.operators", kind: .list, defaultText: "[] (root and the daemon's own user always may)",
        allowed: "a list of user names and @group names", applied: .onReload,
        summary: "Who may change orders and take backups.")

    /// `access.readers`.
    static let accessReaders = ConfigurationKey(
        path: "access.readers", kind: .list, defaultText: "[]",
        allowed: "a list of user names and @group names",
        applied: .onReload, summary: "Who may only read: orders, menu, audit, metrics, events.")

    /// `menu.currency`.
    static let menuCurrency = ConfigurationKey(
        path: "menu.currency", kind: .menu, defaultValue: "EUR",
        allowed: "a three-letter ISO 4217 code such as EUR",
        applied: .onReload, summary: "The currency; every price is a whole number of its minor units (cents).")

    /// `menu.crusts`.
    static let menuCrusts = ConfigurationKey(
        path: "menu.crusts", kind: .menu, defaultValue: "[classic, thin, stuffed]",
        allowed: "a non-empty list of lowercase names", applied: .onReload,
        summary: "The crusts a pizza may have; the first is the default for kinds that name none.")

    /// `menu.extras`.
    static let menuExtras = ConfigurationKey(
        path: "menu.extras", kind: .menu, defaultText: "olives, mushrooms, jalapenos, bacon, extra-cheese",
        allowed: "a mapping of name (lowercase letters, digits, '-') to a price in cents from 0 to 10000000",
        applied: .onReload, summary: "The extras and what each adds to one pizza.")

    /// `menu.kinds`.
    static let menuKinds = ConfigurationKey(
        path: "menu.kinds", kind: .menu, defaultText: "cheese, chicken, seafood",
        allowed:
            "a mapping of kind name to prices (a mapping of size S, M, L, XL to cents; a size without a price is "
            + "not offered) and the kind's defaults: size, crust, chiliSauce, ketchup (true or false), extras",
        applied: .onReload,
        summary: "The kinds on the menu. A new kind is a new entry here, not code.")

    /// `board.<status>.warnSeconds` or `board.<status>.lateSeconds`: after how long in `status` an order's ticket
    /// turns yellow (warn) or red (late), on the boards and, for late, in the alert rules.
    static func boardThreshold(_ status: String, late: Bool) -> ConfigurationKey {
        guard let key = ConfigurationSchema.key("board.\(status).\(late ? "late" : "warn")Seconds") else {
            preconditionFailure("the board has no thresholds for \(status)")
        }
        return key
    }
}

extension ConfigurationSchema {
    /// How long an order may wait in each status of the board before its ticket turns yellow (warn) and red (late),
    /// in seconds. The alert rules read the same numbers (`pizzad_board_late_seconds`), so the board and the pager
    /// agree.
    static let boardThresholdDefaults: [(status: String, warn: Int, late: Int)] = [
        ("placed", 300, 600), ("preparing", 600, 900), ("baking", 900, 1200), ("boxed", 180, 300),
        ("shipped", 1800, 2700),
    ]

    static let boardThresholdKeys: [ConfigurationKey] = boardThresholdDefaults.flatMap { entry in
        [("warn", entry.warn, "yellow"), ("late", entry.late, "red")].map { level, seconds, colour in
            ConfigurationKey(
                path: "board.\(entry.status).\(level)Seconds",
                kind: .integer(range: 1...86_400, noun: "a whole number of seconds"), defaultValue: String(seconds),
                allowed: "", applied: .onRestart,
                summary: "After this long in \(entry.status), an order's ticket turns \(colour) on the boards"
                    + (level == "late" ? "; the alert rules use it too." : "."))
        }
    }

    /// Every key `pizzad.yaml` may hold, in the order the manual lists them.
    /// Every key `pizzad.yaml` may hold, in the order the manual lists them.
    static let keys: [ConfigurationKey] =
        [
            .databasePath,
            .databaseMigrations,
            .databaseSynchronous,
            .databaseBusyTimeout,
            .databaseCheckpoints,
            .socketPath,
            .socketMode,
            .socketGroup,
            .socketMaxConnections,
            .shutdownGraceSeconds,
            .metricsListen,
            .boardListen,
            .boardShowCustomer,
        ] + boardThresholdKeys + [
            .apiListen,
            .apiCertificate,
            .apiKey,
            .apiIdempotencyHours,
            .apiRequestsPerSecond,
            .apiLockoutAfterFailures,
            .apiMaxConnections,
            .apiMaxConnectionsPerAddress,
            .apiMaxUnansweredPerAddress,
            .apiIdleTimeoutSeconds,
            .printers,
            .webhooks,
            .outboxRetryScale,
            .outboxPrinterLimitMinutes,
            .outboxWebhookTimeoutSeconds,
            .logLevel,
            .accessOperators,
            .accessReaders,
            .replicationShopID,
            .replicationBatchSize,
            .replicationTimeoutSeconds,
            .replicationIdleCheckSeconds,
            .replicationHost,
            .replicationPort,
            .replicationDatabase,
            .replicationUser,
            .replicationPasswordFile,
            .replicationTLS,
            .replicationCAFile,
            .menuCurrency,
            .menuCrusts,
            .menuExtras,
            .menuKinds,
            .menuProducts,
            .menuTaxes,
            .menuPizzaTax,
            .menuFees,
        ]

    /// The key at `path`, if it is one.
    static func key(_ path: String) -> ConfigurationKey? { keysByPath[path] }

    private static let keysByPath: [String: ConfigurationKey] = Dictionary(
        uniqueKeysWithValues: keys.map { ($0.path, $0) })
}
