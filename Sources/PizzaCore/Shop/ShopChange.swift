/// A change that belongs to no order (CONTRACT sections 17-18): an item taken off the menu or put back, a day
/// closed with a Z report. It goes through the repository like an order's change, into the audit log as an entry
/// with no order id (hashed in the chain), the outbox, the centre and the event streams (`order: null`).
public struct ShopChange: Sendable, Equatable {
    /// What kind of change it was; the audit log's `action`.
    public enum Kind: String, Sendable, CaseIterable {
        /// An item's availability ("86"): the entry records `{name, available}`.
        case availabilityChanged = "availability_changed"
        /// A Z report: the entry records its figures.
        case zReport = "z_report"

        /// The member an event carries the record under, beside `order: null`: `item` or `report`.
        public var eventMember: String {
            switch self {
            case .availabilityChanged: "item"
            case .zReport: "report"
            }
        }
    }

    /// Its sequence number: the audit entry's and the event stream's.
    public var sequence: Int64
    /// What happened.
    public var kind: Kind
    /// When.
    public var at: Timestamp
    /// ``at`` as its ISO-8601 text, as the audit entry hashes it.
    public var atText: String
    /// Who.
    public var actor: ChangeActor
    /// What it records, as JSON text: the audit entry's `after`.
    public var text: String
    /// What it replaced, as JSON text (an item's availability before), if anything: the entry's `before`.
    public var beforeText: String?
    /// The entry's `reason`: a Z report's `ref`, so that it is in the chain and a restore keeps it.
    public var reason: String?

    /// A change that belongs to no order.
    public init(
        sequence: Int64, kind: Kind, at: Timestamp, actor: ChangeActor, text: String, beforeText: String? = nil,
        reason: String? = nil
    ) {
        self.reason = reason
        self.sequence = sequence
        self.kind = kind
        self.at = at
        self.atText = at.description
        self.actor = actor
        self.text = text
        self.beforeText = beforeText
    }
}

/// What a shop change's run in the transaction made: the record to write, or an earlier change that already did
/// what was asked (a Z with a `ref` that closed its period), answered without a new entry.
public enum ShopChangeRecord: Sendable {
    /// Write an entry recording `text` (replacing `before`), with `reason` (a Z's ref).
    case record(text: String, before: String?, reason: String? = nil)
    /// Nothing to write: `text` is the answer (the Z a ref already made, an item already so).
    case unchanged(text: String)
}

/// What a shop change answers: the change made, or the record that already was.
public struct ShopChangeOutcome: Sendable {
    /// The change committed; nil when nothing needed changing.
    public var change: ShopChange?
    /// The record, as JSON text: the change's, or the one that already was.
    public var text: String
}
