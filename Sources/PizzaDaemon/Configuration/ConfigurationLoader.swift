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
    /// The command-line flags that carry settings: `--config`, and the keys' own flags (``ConfigurationKey/flag``).
    public struct Flags: Sendable {
        /// `--config PATH`.
        public var config: String?
        /// The keys set by their flags, by key.
        var settings: [ConfigurationKey: String] = [:]

        /// The flags given on the command line.
        public init(config: String? = nil, database: String? = nil, socket: String? = nil, logLevel: String? = nil) {
            self.config = config
            self.database = database
            self.socket = socket
            self.logLevel = logLevel
        }

        /// `--database PATH`: `database.path`.
        public var database: String? {
            get { settings[.databasePath] }
            set { settings[.databasePath] = newValue }
        }

        /// `--socket PATH`: `socket.path`.
        public var socket: String? {
            get { settings[.socketPath] }
            set { settings[.socketPath] = newValue }
        }

        /// `--log-level LEVEL`: `log.level`.
        public var logLevel: String? {
            get { settings[.logLevel] }
            set { settings[.logLevel] = newValue }
        }
    }

    /// The command line's settings.
    public var flags: Flags
    /// The process's environment (`PIZZAD_*`, systemd's folders).
    public var environment: [String: String]

    /// A loader for these flags and this environment.
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
        for (key, value) in flags.settings {
            flagValues[AbsoluteConfigKey(stringLiteral: key.path)] = .init(.string(value), isSecret: false)
        }
        providers.append(InMemoryProvider(name: "flags", values: flagValues))
        var contractValues: [AbsoluteConfigKey: ConfigValue] = [:]
        for key in ConfigurationSchema.keys {
            if let variable = key.environmentAliases.first(where: { environment[$0] != nil }),
                let value = environment[variable]
            {
                contractValues[AbsoluteConfigKey(stringLiteral: key.path)] = .init(.string(value), isSecret: false)
            }
        }
        providers.append(InMemoryProvider(name: "environment", values: contractValues))
        providers.append(EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "pizzad"))
        if let file, let tree, tree.mapping != nil {
            providers.append(InMemoryProvider(name: file, values: Self.fileValues(tree)))
        }
        let reader = ConfigReader(providers: providers)
        return try resolve(reader: reader, file: file, tree: tree)
    }

    /// The file's values of the keys swift-configuration reads, from the YAML already parsed and checked: its own
    /// YAML provider refuses a file with a list of mappings (`printers:`, `webhooks:`), which ``OutboxConfiguration``
    /// reads from the tree, as ``MenuConfiguration`` reads the menu.
    static func fileValues(_ tree: Yams.Node) -> [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for key in ConfigurationSchema.keys {
            var node: Yams.Node? = tree
            for part in key.path.split(separator: ".") { node = node?.mapping?[String(part)] }
            guard let node, !node.isNullScalar else { continue }
            let path = AbsoluteConfigKey(stringLiteral: key.path)
            switch key.kind {
            case .text, .integer:
                if let text = node.scalar?.string { values[path] = .init(.string(text), isSecret: false) }
            case .list:
                if let list = node.sequence {
                    values[path] = .init(.stringArray(list.compactMap { $0.scalar?.string }), isSecret: false)
                }
            case .menu, .entries:
                continue
            }
        }
        return values
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

    /// Where `key`'s value comes from, for error messages: its flag, the first of its environment variables that is
    /// set, the file, or the built-in default.
    func source(of key: ConfigurationKey, file: String?) -> String {
        if let flag = key.flag, flags.settings[key] != nil { return flag.spelled }
        if let variable = key.environmentVariables.first(where: { environment[$0] != nil }) {
            return "environment \(variable)"
        }
        return file ?? "built-in default"
    }

    private func resolve(reader: ConfigReader, file: String?, tree: Yams.Node?) throws -> DaemonConfiguration {
        let values = ConfigurationValues(reader: reader, tree: tree) { key in source(of: key, file: file) }
        let menu = try tree.map { try MenuConfiguration.menu(from: $0, file: file ?? "") } ?? Menu.standard
        return try DaemonConfiguration(reading: values, file: file, menu: menu, environment: environment)
    }
}
