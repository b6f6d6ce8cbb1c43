/// A configuration that cannot be used: one line naming the file, the key and what is allowed.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    /// Where the value came from: a file path, `environment PIZZAD_…`, or `--flag`.
    public var source: String
    /// The dotted key, e.g. `log.level`.
    public var key: String
    /// What is wrong.
    public var problem: String
    /// What would be accepted.
    public var allowed: String?

    /// The refusal of `key` from `source`.
    public init(source: String, key: String, problem: String, allowed: String? = nil) {
        self.source = source
        self.key = key
        self.problem = problem
        self.allowed = allowed
    }

    public var description: String {
        var text = "\(source): \(key.isEmpty ? "" : "key '\(key)': ")\(problem)"
        if let allowed { text += "; allowed: \(allowed)" }
        return text
    }
}
