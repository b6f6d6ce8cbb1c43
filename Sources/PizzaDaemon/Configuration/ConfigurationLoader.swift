import Configuration
import Foundation
import Logging
import PizzaCore
import PizzaReplication
import PizzaStorage
import SQLite
import SystemPackage
import Yams

/// Reads pizzad's configuration: command-line flags over `PIZZAD_*` environment variables over the YAML file
/// over built-in defaults (CONTRACT section 6), layered with swift-configuration.
///
/// The file is first checked key by key against ``ConfigurationSchema`` (swift-configuration cannot list a
/// file's keys, so unknown keys are found by walking the YAML with Yams); any bad key or value stops with one
/// ``ConfigurationError`` naming the file, the key and what is allowed.
public struct ConfigurationLoader: Sendable {
    /// The command-line flags that carry settings.
    public struct Flags: Sendable {
        public var config: String?
        public var database: String?
        public var socket: String?
        public var logLevel: String?

        public init(config: String? = nil, database: String? = nil, socket: String? = nil, logLevel: String? = nil) {
            self.config = config
            self.database = database
            self.socket = socket
            self.logLevel = logLevel
        }
    }

    /// Environment variables that name a setting directly (CONTRACT section 6).
    static let contractEnvironment: [String: String] = [
        "PIZZAD_DATABASE": "database.path", "PIZZAD_SOCKET": "socket.path", "PIZZAD_MIGRATIONS": "database.migrations",
    ]

    public var flags: Flags
    public var environment: [String: String]

    public init(flags: Flags, environment: [String: String]) {
        self.flags = flags
        self.environment = environment
    }

    /// The configuration file to read: `--config`, `PIZZAD_CONFIG`, `$CONFIGURATION_DIRECTORY/pizzad.yaml`
    /// (systemd), then `config/pizzad.yaml` in the working directory; nil when none applies.
    public func configurationFile() throws(ConfigurationError) -> String? {
        if let named = flags.config ?? environment["PIZZAD_CONFIG"] {
            guard FileManager.default.fileExists(atPath: named) else {
                let source = flags.config != nil ? "--config" : "environment PIZZAD_CONFIG"
                throw ConfigurationError(source: source, key: "", problem: "configuration file \(named) does not exist")
            }
            return named
        }
        if let directory = environment["CONFIGURATION_DIRECTORY"]?.split(separator: ":").first {
            let candidate = "\(directory)/pizzad.yaml"
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return FileManager.default.fileExists(atPath: "config/pizzad.yaml") ? "config/pizzad.yaml" : nil
    }

    /// Reads and checks everything.
    public func load() async throws -> DaemonConfiguration {
        let file = try configurationFile()
        var tree: Yams.Node?
        if let file {
            tree = try Self.parseFile(file)
            if let tree { try ConfigurationSchema.validate(tree, file: file) }
        }
        var providers: [any ConfigProvider] = []
        var flagValues: [AbsoluteConfigKey: ConfigValue] = [:]
        if let database = flags.database { flagValues["database.path"] = .init(.string(database), isSecret: false) }
        if let socket = flags.socket { flagValues["socket.path"] = .init(.string(socket), isSecret: false) }
        if let level = flags.logLevel { flagValues["log.level"] = .init(.string(level), isSecret: false) }
        providers.append(InMemoryProvider(name: "flags", values: flagValues))
        var contractValues: [AbsoluteConfigKey: ConfigValue] = [:]
        for (variable, key) in Self.contractEnvironment {
            if let value = environment[variable] {
                contractValues[AbsoluteConfigKey(stringLiteral: key)] = .init(.string(value), isSecret: false)
            }
        }
        providers.append(InMemoryProvider(name: "environment", values: contractValues))
        providers.append(EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "pizzad"))
        if let file, tree?.mapping != nil {
            providers.append(try await FileProvider<YAMLSnapshot>(filePath: FilePath(file)))
        }
        let reader = ConfigReader(providers: providers)
        return try resolve(reader: reader, file: file, tree: tree)
    }

    static func parseFile(_ file: String) throws(ConfigurationError) -> Yams.Node? {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError(source: file, key: "", problem: "cannot be read (check its permissions)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(source: file, key: "", problem: "is not UTF-8 text")
        }
        do {
            return try Yams.compose(yaml: text)
        } catch {
            let detail = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
            throw ConfigurationError(source: file, key: "", problem: "is not valid YAML: \(detail)")
        }
    }

    /// Where `key`'s value comes from, for error messages.
    func source(of key: String, file: String?) -> String {
        switch key {
        case "database.path" where flags.database != nil: return "--database"
        case "socket.path" where flags.socket != nil: return "--socket"
        case "log.level" where flags.logLevel != nil: return "--log-level"
        default: break
        }
        if let variable = Self.contractEnvironment.first(where: { $0.value == key && environment[$0.key] != nil })?.key
        {
            return "environment \(variable)"
        }
        let generic = "PIZZAD_" + ConfigurationSchema.environmentName(of: key)
        if environment[generic] != nil { return "environment \(generic)" }
        return file ?? "built-in default"
    }

    private func resolve(reader: ConfigReader, file: String?, tree: Yams.Node?) throws -> DaemonConfiguration {
        func text(_ key: String) -> String? {
            reader.string(forKey: ConfigKey(stringLiteral: key)).flatMap { $0.isEmpty ? nil : $0 }
        }
        /// The value at `key`, checked with `parse`; else its default from ``ConfigurationSchema/keys``, read the
        /// same way; else nil.
        func setting<T>(_ key: String, _ parse: (String) -> T?) throws -> T? {
            if let raw = text(key) {
                guard let value = parse(raw) else {
                    throw ConfigurationError(
                        source: source(of: key, file: file), key: key, problem: "'\(raw)' is not allowed",
                        allowed: ConfigurationSchema.allowed(for: key))
                }
                return value
            }
            guard let fallback = ConfigurationSchema.key(key)?.defaultValue else { return nil }
            guard let value = parse(fallback) else {
                preconditionFailure("\(key): the schema's default '\(fallback)' fails its own check")
            }
            return value
        }
        /// A setting that always has a value: its default is in the schema.
        func defaulted<T>(_ key: String, _ parse: (String) -> T?) throws -> T {
            guard let value = try setting(key, parse) else {
                preconditionFailure("\(key) has no default in the schema")
            }
            return value
        }
        /// A whole-number setting, checked against its range in ``ConfigurationSchema/keys``.
        func integer(_ key: String) throws -> Int {
            guard let range = ConfigurationSchema.range(of: key) else { preconditionFailure("\(key) has no range") }
            return try defaulted(key) { Int($0).flatMap { range.contains($0) ? $0 : nil } }
        }
        func list(_ key: String) throws -> [String] {
            let values = reader.stringArray(forKey: ConfigKey(stringLiteral: key)) ?? []
            for value in values where !ConfigurationSchema.isPrincipal(value) {
                throw ConfigurationError(
                    source: source(of: key, file: file), key: key, problem: "'\(value)' is not a user or @group name",
                    allowed: ConfigurationSchema.allowed(for: key))
            }
            return values
        }
        /// `replication.*`: nil unless `replication.postgres.host` is set; then the shop id, database and user must be.
        func replication() throws -> ReplicationConfiguration? {
            guard let host = text("replication.postgres.host") else {
                for key in ["replication.shopId", "replication.postgres.database", "replication.postgres.user"]
                where text(key) != nil {
                    throw ConfigurationError(
                        source: source(of: key, file: file), key: "replication.postgres.host",
                        problem: "is missing, so \(key) has no effect",
                        allowed: "the central PostgreSQL's host name or address")
                }
                return nil
            }
            func required(_ key: String) throws -> String {
                guard let value = text(key) else {
                    throw ConfigurationError(
                        source: source(of: "replication.postgres.host", file: file), key: key,
                        problem: "is required when replication.postgres.host is set",
                        allowed: ConfigurationSchema.allowed(for: key))
                }
                return value
            }
            return ReplicationConfiguration(
                shopID: try setting("replication.shopId") { ReplicationConfiguration.isShopID($0) ? $0 : nil }
                    ?? required("replication.shopId"),
                host: host,
                port: try integer("replication.postgres.port"),
                database: try required("replication.postgres.database"),
                user: try required("replication.postgres.user"),
                passwordFile: text("replication.postgres.passwordFile"),
                tls: try defaulted("replication.postgres.tls") {
                    ReplicationConfiguration.TLSMode(rawValue: $0.lowercased())
                },
                caFile: try setting("replication.postgres.caFile") { path in
                    ReplicationConfiguration.isCertificateFile(path) ? path : nil
                },
                batchSize: try integer("replication.batchSize"),
                timeoutSeconds: try integer("replication.timeoutSeconds"))
        }
        func board() throws -> BoardSettings {
            var board = BoardSettings()
            board.listen = try setting("board.listen") { ListenAddress(parsing: $0) }
            board.showCustomer = try defaulted("board.showCustomer") { Bool($0.lowercased()) }
            for entry in ConfigurationSchema.boardThresholdDefaults {
                guard let status = OrderStatus(rawValue: entry.status) else { continue }
                let warn = try integer("board.\(entry.status).warnSeconds")
                let late = try integer("board.\(entry.status).lateSeconds")
                let key = "board.\(entry.status).warnSeconds"
                guard warn < late else {
                    throw ConfigurationError(
                        source: source(of: key, file: file), key: key, problem: "\(warn) is not below the late mark",
                        allowed: "fewer seconds than board.\(entry.status).lateSeconds (\(late))")
                }
                board.thresholds[status] = (warn, late)
            }
            return board
        }
        let stateDirectory = environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
        let runtimeDirectory = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first.map(String.init)
        let menu = try tree.map { try MenuConfiguration.menu(from: $0, file: file ?? "") } ?? Menu.standard
        return DaemonConfiguration(
            file: file,
            databasePath: text("database.path") ?? stateDirectory.map { "\($0)/pizzad.sqlite" }
                ?? ".pizzad/pizzad.sqlite",
            migrationsPath: text("database.migrations"),
            synchronous: try defaulted("database.synchronous") {
                let level = ConnectionSettings.Synchronous(rawValue: $0.uppercased())
                return level == .full || level == .extra ? level : nil
            },
            busyTimeoutMilliseconds: try integer("database.busyTimeoutMs"),
            checkpoints: try defaulted("database.checkpoints") {
                SQLiteOrderStore.CheckpointPolicy(rawValue: $0.lowercased())
            },
            socketPath: text("socket.path") ?? runtimeDirectory.map { "\($0)/pizzad.sock" } ?? ".pizzad/pizzad.sock",
            socketMode: try defaulted("socket.mode") { ConfigurationSchema.parseMode($0) },
            socketGroup: text("socket.group"),
            maxConnections: try integer("socket.maxConnections"),
            shutdownGraceSeconds: try integer("shutdown.graceSeconds"),
            logLevel: try defaulted("log.level") { Logger.Level(rawValue: $0.lowercased()) },
            operators: try list("access.operators"),
            readers: try list("access.readers"),
            menu: menu,
            metricsListen: try setting("metrics.listen") { ListenAddress(parsing: $0) },
            board: try board(),
            replication: try replication())
    }
}
