/// One change to one order, as the repository announces it to its subscribers. Immutable, so the wire text cached
/// with it (``afterText``) always matches ``after``.
///
/// A final class of constants rather than a struct: the change is handed to every subscriber and kept with its
/// outcome, and each copy of a struct holding the order twice retained every string and array in it (about
/// twenty retains); a copy of a reference retains one object. Compared by value, as the struct was.
public final class OrderChange: Sendable, Equatable {
    /// What kind of change it was; the audit log's `action`.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case created
        case itemAdded = "item_added"
        case itemRemoved = "item_removed"
        case placed, advanced, cancelled
        /// How the order reaches its customer changed (CONTRACT section 17).
        case fulfilmentChanged = "fulfilment_changed"
        /// A discount given, a payment or a refund recorded.
        case discounted, paid, refunded
    }

    /// The change's sequence number: the audit entry's and the event stream's, gapless and increasing.
    public let sequence: Int64
    /// What happened: created, an item added or removed, placed, advanced, cancelled.
    public let kind: Kind
    /// When the change was made.
    public let at: Timestamp
    /// ``at`` as its ISO-8601 text, made once: the rows a change writes carry it several times (the order's
    /// `updated_at`, its history entries, the audit entry).
    public let atText: String
    /// Who made it: the peer's uid, name and pid, and the device and address over the order API.
    public let actor: ChangeActor
    /// The order before the change; nil for `created`.
    public let before: Cart?
    /// The order after the change.
    public let after: Cart
    /// The reason given, for cancellations.
    public let reason: String?
    /// The order API's `Idempotency-Key` that asked for it, kept with it; nil for every other change.
    public let requestKey: RequestKey?
    /// The order after the change as JSON text (its wire form), encoded once for the audit entry and the events.
    public let afterText = ComputedText()
    /// The order before the change as JSON text, when it was known without encoding it (the text its last change
    /// wrote); nil to encode ``before``.
    public let beforeText: String?

    /// A change of one order, as the repository hands it to its subscribers.
    public init(
        sequence: Int64, kind: Kind, at: Timestamp, actor: ChangeActor, before: Cart?, after: Cart,
        reason: String? = nil, requestKey: RequestKey? = nil, beforeText: String? = nil
    ) {
        self.sequence = sequence
        self.kind = kind
        self.at = at
        self.atText = at.description
        self.actor = actor
        self.before = before
        self.after = after
        self.reason = reason
        self.requestKey = requestKey
        self.beforeText = beforeText
    }

    /// Equal when every field is (the cached text aside, which always compares equal).
    public static func == (lhs: OrderChange, rhs: OrderChange) -> Bool {
        lhs.sequence == rhs.sequence && lhs.kind == rhs.kind && lhs.at == rhs.at && lhs.atText == rhs.atText
            && lhs.actor == rhs.actor && lhs.before == rhs.before && lhs.after == rhs.after
            && lhs.reason == rhs.reason && lhs.requestKey == rhs.requestKey
    }
}
