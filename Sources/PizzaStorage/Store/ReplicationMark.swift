/// How far this database's changes have been shipped centrally (`replication_state`, migration 0004).
public struct ReplicationMark: Sendable, Equatable {
    /// Tells this database apart from another configured with the same shop id.
    public var shopKey: String
    /// The last audit sequence number the centre committed, as last recorded here.
    public var shippedSeq: Int64
    /// That entry's hash.
    public var shippedHash: String
}
