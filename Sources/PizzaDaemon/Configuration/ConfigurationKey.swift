/// One key of `pizzad.yaml`: what it holds, its default, what it allows and whether a reload applies it.
///
/// ``ConfigurationSchema/keys`` lists them all. The loader checks a file against them, its errors quote their
/// `allowed` text, its defaults are their `defaultValue` (read as a value from the file would be), and the
/// `pizzad.yaml(5)` page is written from them, so the page, the checks and the defaults cannot disagree.
struct ConfigurationKey: Sendable {
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
    /// The flag and environment variables that set it besides `PIZZAD_<KEY>`.
    var alsoFrom: [String] = []

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
        }
    }
}
