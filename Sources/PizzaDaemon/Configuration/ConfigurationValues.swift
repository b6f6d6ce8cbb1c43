import Configuration
import Yams

/// The layered values (flags, environment, file, built-in defaults), as each part of the daemon reads its own keys
/// from them: `BoardSettings(reading:)`, `ReplicationConfiguration(reading:)`, `DaemonConfiguration(reading:)`.
///
/// Every read names a ``ConfigurationKey`` constant and goes through it: a value that fails its check is a
/// ``ConfigurationError`` naming where it came from, the key and what the key allows; a missing one is the key's
/// default, read the same way.
struct ConfigurationValues {
    let reader: ConfigReader
    /// The file's YAML, for the keys swift-configuration cannot read as one value (the menu's mappings).
    let tree: Yams.Node?
    /// Where `key`'s value came from, for errors (`--database`, `environment PIZZAD_…`, the file).
    let source: (_ key: ConfigurationKey) -> String

    /// The text at `key`, nil when it is absent or empty.
    func text(_ key: ConfigurationKey) -> String? {
        reader.string(forKey: ConfigKey(stringLiteral: key.path)).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The value at `key`, checked with `parse`; else its default from the key, read the same way; else nil.
    func setting<T>(_ key: ConfigurationKey, _ parse: (String) -> T?) throws(ConfigurationError) -> T? {
        if let raw = text(key) {
            guard let value = parse(raw) else {
                throw ConfigurationError(
                    source: source(key), key: key.path, problem: "'\(raw)' is not allowed",
                    allowed: key.allowedDescription)
            }
            return value
        }
        guard let fallback = key.defaultValue else { return nil }
        guard let value = parse(fallback) else {
            preconditionFailure("\(key.path): the schema's default '\(fallback)' fails its own check")
        }
        return value
    }

    /// A setting that always has a value: its default is in the key.
    func defaulted<T>(_ key: ConfigurationKey, _ parse: (String) -> T?) throws(ConfigurationError) -> T {
        guard let value = try setting(key, parse) else { preconditionFailure("\(key.path) has no default") }
        return value
    }

    /// A whole-number setting, checked against the key's range.
    func integer(_ key: ConfigurationKey) throws(ConfigurationError) -> Int {
        guard case .integer(let range, _) = key.kind else { preconditionFailure("\(key.path) has no range") }
        return try defaulted(key) { Int($0).flatMap { range.contains($0) ? $0 : nil } }
    }

    /// A list of user and `@group` names.
    func principals(_ key: ConfigurationKey) throws(ConfigurationError) -> [String] {
        let values = list(key) ?? []
        for value in values where !ConfigurationSchema.isPrincipal(value) {
            throw ConfigurationError(
                source: source(key), key: key.path, problem: "'\(value)' is not a user or @group name",
                allowed: key.allowedDescription)
        }
        return values
    }

    /// The list at `key`, nil when it is absent.
    func list(_ key: ConfigurationKey) -> [String]? {
        reader.stringArray(forKey: ConfigKey(stringLiteral: key.path))
    }

    /// Every key's value as it was given (nil: not given), for the reload to compare one configuration with the next
    /// key by key. The menu's keys are the file's YAML below them, written back out.
    func given() -> [ConfigurationKey: String] {
        var given: [ConfigurationKey: String] = [:]
        for key in ConfigurationSchema.keys {
            switch key.kind {
            case .text, .integer: given[key] = text(key)
            case .list: given[key] = list(key)?.joined(separator: "\n")
            case .menu:
                let name = String(key.path.dropFirst("menu.".count))
                given[key] = tree?.mapping?["menu"]?.mapping?[name].flatMap { try? Yams.serialize(node: $0) }
            case .entries:
                given[key] = tree?.mapping?[key.path].flatMap { try? Yams.serialize(node: $0) }
            }
        }
        return given
    }
}
