/// One key of `pizzad.yaml`: what it holds, its default, what it allows, whether a reload applies it, and the flag
/// and environment variables that set it.
///
/// Each key is one constant (`ConfigurationKey.databasePath`, in `ConfigurationKey+Keys.swift`), and everything
/// that names a key uses that constant: ``ConfigurationSchema/keys`` lists them and checks a file against them, the
/// parts of the daemon read their values through them (``ConfigurationValues``), `pizzad`'s flags take their names
/// from ``flag``, the loader layers ``environmentVariables``, the reload compares every key and sorts it by
/// ``applied``, and `pizzad.yaml(5)` is written from them. So the page, the checks, the flags, the defaults and the
/// reload cannot disagree.
struct ConfigurationKey: Sendable, Hashable {
    /// The shape of a value.
    enum Kind: Sendable, Equatable {
        /// One scalar.
        case text
        /// A whole number within `range`, counting `noun`.
        case integer(range: ClosedRange<Int>, noun: String)
        /// A list of scalars.
        case list
        /// A part of the menu, checked by ``MenuConfiguration``.
        case menu
        /// A list of mappings (`printers`, `webhooks`), checked by ``OutboxConfiguration``.
        case entries
    }

    /// When a changed value takes effect.
    enum Applied: Sendable {
        /// `systemctl reload pizzad` (SIGHUP) applies it at once.
        case onReload
        /// Only a restart does; a reload logs it under `needs-restart`.
        case onRestart
    }

    /// The dotted path, e.g. `database.busyTimeoutMs`.
    var path: String
    var kind: Kind
    /// The built-in value as it would be written in the file, or nil when the key has none (off, or computed).
    var defaultValue: String?
    /// The default in words where there is no single value (`$STATE_DIRECTORY/pizzad.sqlite under systemd…`).
    var defaultText: String?
    /// What the key accepts, in words; errors quote it.
    var allowed: String
    var applied: Applied
    /// What the key is for, a sentence or two.
    var summary: String
    /// The command-line flag that sets it, if any: `pizzad --database PATH`.
    var flag: Flag? = nil
    /// Environment variables that set it before `PIZZAD_<KEY>` (CONTRACT section 6: `PIZZAD_DATABASE`).
    var environmentAliases: [String] = []

    /// A command-line flag of `pizzad` that sets a key.
    struct Flag: Sendable, Hashable {
        /// The long name without its dashes: `database`.
        var name: String
        /// The value's name in the help and the manual: `PATH`.
        var valueName: String

        /// `--database`.
        var spelled: String { "--" + name }
    }

    static func == (lhs: ConfigurationKey, rhs: ConfigurationKey) -> Bool { lhs.path == rhs.path }

    func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// Every environment variable that sets the key, in the order they win: the contract's own names, then
    /// `PIZZAD_<KEY>` (none for the menu and the lists of mappings).
    var environmentVariables: [String] {
        environmentAliases + (kind == .menu || kind == .entries ? [] : [environmentVariable])
    }

    /// The flag and variables the manual lists under "Also".
    var alsoFrom: [String] { (flag.map { [$0.spelled] } ?? []) + environmentVariables }

    /// What the key accepts, in words: an integer's range, else `allowed`.
    var allowedDescription: String {
        if case .integer(let range, let noun) = kind {
            return "\(noun) from \(range.lowerBound) to \(range.upperBound)"
        }
        return allowed
    }

    /// The default as the manual shows it.
    var defaultDescription: String {
        if let defaultText { return defaultText }
        if let defaultValue { return defaultValue }
        return "none"
    }

    /// The generic environment variable: `log.level` → `PIZZAD_LOG_LEVEL`.
    var environmentVariable: String { "PIZZAD_" + ConfigurationSchema.environmentName(of: path) }

    /// The type in words.
    var typeDescription: String {
        switch kind {
        case .text: "text"
        case .integer: "integer"
        case .list: "list of text"
        case .menu: "mapping"
        case .entries: "list of mappings"
        }
    }
}
