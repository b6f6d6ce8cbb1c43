/// What a reload changes: every key whose value differs between the running configuration and the new one, sorted
/// by the key's own ``ConfigurationKey/applied``, so that no key can be left out of the comparison.
struct ConfigurationChange: Equatable {
    /// Changed keys that `systemctl reload pizzad` applies at once, in the schema's order.
    var applied: [ConfigurationKey] = []
    /// Changed keys that only a restart applies, in the schema's order.
    var needsRestart: [ConfigurationKey] = []

    /// Compares every key of ``ConfigurationSchema/keys``: a key given nowhere counts as its default.
    init(from previous: DaemonConfiguration, to next: DaemonConfiguration) {
        for key in ConfigurationSchema.keys {
            let before = previous.given[key] ?? key.defaultValue
            let after = next.given[key] ?? key.defaultValue
            guard before != after else { continue }
            switch key.applied {
            case .onReload: applied.append(key)
            case .onRestart: needsRestart.append(key)
            }
        }
    }

    /// The log's words for a list of keys: their paths, or `nothing`.
    static func describe(_ keys: [ConfigurationKey]) -> String {
        keys.isEmpty ? "nothing" : keys.map(\.path).joined(separator: ", ")
    }
}
