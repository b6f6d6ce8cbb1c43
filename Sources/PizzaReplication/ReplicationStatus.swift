public import PizzaCore

/// What `pizzactl replication status` and `daemon.status` show.
public struct ReplicationStatus: Sendable, Equatable {
    /// What the shipper is doing.
    public enum State: String, Sendable {
        /// Connecting, or checking the central schema.
        case connecting
        /// Sending a backlog.
        case shipping
        /// Connected, nothing to send.
        case idle
        /// Waiting to try again after an error.
        case retrying
        /// Stopped on an error that needs an operator (diverged, shop collision, a foreign database).
        case stopped
    }

    public var peer: String
    public var shopID: String
    public var state: State
    public var connected: Bool
    /// The last error, until shipping works again.
    public var lastError: String?
    public var lastErrorKind: String?
    public var lastErrorAt: Timestamp?
    /// The last sequence number the centre committed, as recorded here.
    public var shippedSeq: Int64
    /// The newest local sequence number.
    public var latestSeq: Int64
    /// Entries not yet shipped.
    public var backlogEvents: Int64 { max(0, latestSeq - shippedSeq) }
    /// How old the oldest unshipped entry is, in seconds (0 when none waits).
    public var backlogSeconds: Double
    /// Since this start.
    public var batches: Int64
    public var events: Int64
    public var errors: Int64
}
