import ArgumentParser

/// The flags that carry settings, shared by the daemon and its subcommands: `--config`, and each key's own flag,
/// named by the key (``ConfigurationKey/flag``) so that the flag, its environment variable and its key are one.
struct ConfigurationOptions: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "Configuration file (default: $PIZZAD_CONFIG, pizzad.yaml in $CONFIGURATION_DIRECTORY under systemd, "
                + "config/pizzad.yaml in the working directory, else built-in defaults).",
            valueName: "PATH"))
    var config: String?

    @Option(name: .customLong(Self.flag(.databasePath).name), help: Self.help(.databasePath))
    var database: String?

    @Option(name: .customLong(Self.flag(.socketPath).name), help: Self.help(.socketPath))
    var socket: String?

    @Option(name: .customLong(Self.flag(.logLevel).name), help: Self.help(.logLevel))
    var logLevel: String?

    /// What the loader takes.
    var flags: ConfigurationLoader.Flags {
        ConfigurationLoader.Flags(config: config, database: database, socket: socket, logLevel: logLevel)
    }

    static func flag(_ key: ConfigurationKey) -> ConfigurationKey.Flag {
        guard let flag = key.flag else { preconditionFailure("\(key.path) has no flag") }
        return flag
    }

    /// A key's flag's help, from the key: what it sets, its variables and its default.
    static func help(_ key: ConfigurationKey) -> ArgumentHelp {
        let variables = key.environmentVariables.map { "$" + $0 }.joined(separator: ", ")
        let allowed = key.kind == .text && key.defaultValue != nil ? " One of: \(key.allowedDescription)." : ""
        return ArgumentHelp(
            "\(key.summary)\(allowed) Sets \(key.path) (also \(variables); default: \(key.defaultDescription)).",
            valueName: flag(key).valueName)
    }
}
