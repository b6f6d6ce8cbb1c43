/// `replication.status` (and `daemon.status`'s `replication`): shipping to the centre. Off, it is
/// `{"enabled": false}` and nothing else.
public struct ReplicationStatusAnswer: Answer, Equatable {
    /// Where shipping stands while it is on.
    public struct Shipping: Codable, Sendable, Equatable {
        /// This shop's id at the centre.
        public var shop: String
        /// The centre, `HOST:PORT/DATABASE`.
        public var peer: String
        /// `connecting`, `shipping`, `idle`, `retrying` or `stopped`.
        public var state: String
        /// Whether a connection is open.
        public var connected: Bool
        /// The last failure, in words.
        public var lastError: String?
        /// Its kind (`schema_behind`, `unreachable`, …).
        public var lastErrorKind: String?
        /// When it happened (ISO-8601).
        public var lastErrorAt: String?
        /// The newest audit entry the centre holds.
        public var shippedSeq: Int64
        /// The newest audit entry here.
        public var latestSeq: Int64
        /// Entries not yet shipped.
        public var backlogEvents: Int64
        /// How old the oldest unshipped entry is, in seconds.
        public var backlogSeconds: Double
        /// Batches shipped since start.
        public var batches: Int64
        /// Entries shipped since start.
        public var events: Int64
        /// Failed attempts since start.
        public var errors: Int64

        /// A status.
        public init(
            shop: String, peer: String, state: String, connected: Bool, lastError: String?, lastErrorKind: String?,
            lastErrorAt: String?, shippedSeq: Int64, latestSeq: Int64, backlogEvents: Int64, backlogSeconds: Double,
            batches: Int64, events: Int64, errors: Int64
        ) {
            self.shop = shop
            self.peer = peer
            self.state = state
            self.connected = connected
            self.lastError = lastError
            self.lastErrorKind = lastErrorKind
            self.lastErrorAt = lastErrorAt
            self.shippedSeq = shippedSeq
            self.latestSeq = latestSeq
            self.backlogEvents = backlogEvents
            self.backlogSeconds = backlogSeconds
            self.batches = batches
            self.events = events
            self.errors = errors
        }
    }

    /// Where shipping stands; nil while replication is off.
    public var shipping: Shipping?

    /// On, with its figures; or off (nil).
    public init(_ shipping: Shipping?) { self.shipping = shipping }

    enum CodingKeys: String, CodingKey { case enabled }

    /// Reads `enabled`, and the shipping figures beside it when it is true.
    public init(from decoder: any Decoder) throws {
        let enabled = try decoder.container(keyedBy: CodingKeys.self).decode(Bool.self, forKey: .enabled)
        shipping = enabled ? try Shipping(from: decoder) : nil
    }

    /// Writes `enabled`, and the shipping figures beside it while on.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(shipping != nil, forKey: .enabled)
        try shipping?.encode(to: encoder)
    }
}

/// `replication.verify`: the centre's chain against this shop's at the centre's newest entry.
public struct ReplicationVerifyAnswer: Answer, Equatable {
    /// Whether they agree.
    public var ok: Bool
    /// This shop's id.
    public var shop: String
    /// The newest entry shipped, as this shop knows it.
    public var shippedSeq: Int64
    /// The newest entry the centre holds (nil when it could not be read).
    public var centralSeq: Int64?
    /// The centre's hash there.
    public var centralHash: String?
    /// This shop's hash there.
    public var localHash: String?
    /// Entries at the centre.
    public var centralEvents: Int64?
    /// Orders at the centre.
    public var centralOrders: Int64?
    /// What differs, in words.
    public var problem: String?

    /// An answer.
    public init(
        ok: Bool, shop: String, shippedSeq: Int64, centralSeq: Int64?, centralHash: String?, localHash: String?,
        centralEvents: Int64?, centralOrders: Int64?, problem: String?
    ) {
        self.ok = ok
        self.shop = shop
        self.shippedSeq = shippedSeq
        self.centralSeq = centralSeq
        self.centralHash = centralHash
        self.localHash = localHash
        self.centralEvents = centralEvents
        self.centralOrders = centralOrders
        self.problem = problem
    }
}
