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

    /// The centre, as `user@host:port/database`.
    public var peer: String
    /// This shop's `replication.shopId`.
    public var shopID: String
    /// What the shipper is doing now.
    public var state: State
    /// Whether it holds a connection to the centre.
    public var connected: Bool
    /// The last error, until shipping works again.
    public var lastError: String?
    /// The last error's name (`unreachable`, `authentication`, `diverged`, …).
    public var lastErrorKind: String?
    /// When the last error happened.
    public var lastErrorAt: Timestamp?
    /// The last sequence number the centre committed, as recorded here.
    public var shippedSeq: Int64
    /// The newest local sequence number.
    public var latestSeq: Int64
    /// Entries not yet shipped.
    public var backlogEvents: Int64 { max(0, latestSeq - shippedSeq) }
    /// How old the oldest unshipped entry is, in seconds (0 when none waits).
    public var backlogSeconds: Double
    /// Batches the centre committed since this start.
    public var batches: Int64
    /// Audit entries shipped since this start.
    public var events: Int64
    /// Errors since this start.
    public var errors: Int64
}
