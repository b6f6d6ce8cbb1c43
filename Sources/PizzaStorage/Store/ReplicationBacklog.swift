public import PizzaCore
import SQLite

/// Where the audit log ends and how old its oldest unshipped entry is.
public struct ReplicationBacklog: Sendable, Equatable {
    /// The newest audit sequence number.
    public var latestSeq: Int64
    /// When the first entry after the shipped one was written, if there is one.
    public var oldestUnshippedAt: Timestamp?
}
