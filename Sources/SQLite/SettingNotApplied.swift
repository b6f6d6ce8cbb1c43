internal import CSQLite

/// A setting that SQLite did not take.
public struct SettingNotApplied: Error, CustomStringConvertible, Sendable {
    /// The pragma's name.
    public let pragma: String
    /// What was asked for.
    public let expected: String
    /// What SQLite reports.
    public let actual: String

    public var description: String {
        "SQLite did not apply PRAGMA \(pragma): asked for \(expected), it reports \(actual)"
    }
}
