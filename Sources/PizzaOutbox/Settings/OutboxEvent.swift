public import PizzaStorage

/// What a printer or a webhook may be sent (CONTRACT section 16): an order `created`, or the status it enters.
/// Adding an item changes no status, and is no event.
public enum OutboxEvent: String, CaseIterable, Sendable, Hashable, Comparable {
    case created, placed, preparing, baking, boxed, shipped, delivered, cancelled
    /// A discount given (CONTRACT section 17; the audit entry's action).
    case discounted
    /// A payment recorded.
    case paid
    /// A refund recorded.
    case refunded
    /// How the order reaches its customer changed.
    case fulfilmentChanged = "fulfilment_changed"

    /// The events that are an order's change of its own kind rather than a status it entered.
    public static let changes: [OutboxEvent] = [.discounted, .paid, .refunded, .fulfilmentChanged]

    /// The events an audit entry is: `created` for a new order, and the status it entered when it entered one (an
    /// order created placed is both), the change's own kind for a discount, a payment, a refund or a new
    /// fulfilment; none for an item added or removed.
    public static func events(of entry: AuditEntry) -> Set<OutboxEvent> {
        var events: Set<OutboxEvent> = []
        switch entry.action {
        case "created":
            events.insert(.created)
            if let entered = OutboxEvent(rawValue: entry.statusAfter), entered != .created { events.insert(entered) }
        case "placed", "advanced", "cancelled":
            if let entered = OutboxEvent(rawValue: entry.statusAfter), entered != .created { events.insert(entered) }
        case let action:
            if let change = OutboxEvent(rawValue: action), changes.contains(change) { events.insert(change) }
        }
        return events
    }

    /// In the order's life: created first, cancelled last.
    public static func < (lhs: OutboxEvent, rhs: OutboxEvent) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
