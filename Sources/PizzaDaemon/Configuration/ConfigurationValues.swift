import Configuration

/// The layered values (flags, environment, file, built-in defaults), as each part of the daemon reads its own keys
/// from them: `BoardSettings(reading:)`, `ReplicationConfiguration(reading:)`, `DaemonConfiguration(reading:)`.
///
/// Every read goes through ``ConfigurationSchema/keys``: a value that fails its check is a ``ConfigurationError``
/// naming where it came from, the key and what the schema allows; a missing one is the schema's default, read the
/// same way. So a key is named twice in the code: in the schema, and where the part that uses it reads it.
struct ConfigurationValues {
    let reader: ConfigReader
    /// Where `key`'s value came from, for errors (`--database`, `environment PIZZAD_…`, the file).
    let source: (_ key: String) -> String

    /// The text at `key`, nil when it is absent or empty.
    func text(_ key: String) -> String? {
        reader.string(forKey: ConfigKey(stringLiteral: key)).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The value at `key`, checked with `parse`; else its default from ``ConfigurationSchema/keys``, read the same
    /// way; else nil.
    func setting<T>(_ key: String, _ parse: (String) -> T?) throws(ConfigurationError) -> T? {
        if let raw = text(key) {
            guard let value = parse(raw) else {
                throw ConfigurationError(
                    source: source(key), key: key, problem: "'\(raw)' is not allowed",
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
    func defaulted<T>(_ key: String, _ parse: (String) -> T?) throws(ConfigurationError) -> T {
        guard let value = try setting(key, parse) else { preconditionFailure("\(key) has no default in the schema") }
        return value
    }

    /// A whole-number setting, checked against its range in ``ConfigurationSchema/keys``.
    func integer(_ key: String) throws(ConfigurationError) -> Int {
        guard let range = ConfigurationSchema.range(of: key) else { preconditionFailure("\(key) has no range") }
        return try defaulted(key) { Int($0).flatMap { range.contains($0) ? $0 : nil } }
    }

    /// A list of user and `@group` names.
    func principals(_ key: String) throws(ConfigurationError) -> [String] {
        let values = reader.stringArray(forKey: ConfigKey(stringLiteral: key)) ?? []
        for value in values where !ConfigurationSchema.isPrincipal(value) {
            throw ConfigurationError(
                source: source(key), key: key, problem: "'\(value)' is not a user or @group name",
                allowed: ConfigurationSchema.allowed(for: key))
        }
        return values
    }
}
