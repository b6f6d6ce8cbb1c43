import PizzaCore

/// What `pizzad restore` was asked to do (``RestoreCommand`` parses it).
struct RestoreOptions: Sendable {
    enum Source: Sendable, Equatable {
        /// A copy made by `db.backup` (or any pizzad database file).
        case backup(String)
        /// The central PostgreSQL this shop ships to (`replication.postgres`).
        case central
    }

    /// How much of the history to restore.
    enum Point: Sendable, Equatable {
        case end
        /// Up to and including this sequence number.
        case seq(Int64)
        /// Up to the last entry written at or before this time.
        case time(Timestamp)

        var text: String {
            switch self {
            case .end: "up to the end"
            case .seq(let seq): "up to entry \(seq)"
            case .time(let time): "at or before \(time)"
            }
        }
    }

    var source: Source
    var point: Point = .end
    var dryRun = false
    var force = false
    var ifNotExists = false
    var flags = ConfigurationLoader.Flags()
}
