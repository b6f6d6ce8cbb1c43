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
    /// An item was taken off the menu or put back (it belongs to no order).
    case availabilityChanged = "availability_changed"
    /// The day was closed: a Z report (it belongs to no order).
    case zReport = "z_report"

    /// The events that are a change of its own kind (its audit entry's action) rather than a status an order entered.
    public static let changes: [OutboxEvent] = [
        .discounted, .paid, .refunded, .fulfilmentChanged, .availabilityChanged, .zReport,
    ]

    /// The events that belong to no order.
    public var isShopWide: Bool { self == .availabilityChanged || self == .zReport }

    /// The events an audit entry is: `created` for a new order, and the status it entered when it entered one (an
    /// order created placed is both), the change's own kind for a discount, a payment, a refund or a new
    /// fulfilment; none for an item added or removed.
    public static func events(of entry: AuditEntry) -> Set<OutboxEvent> {
        var events: Set<OutboxEvent> = []
        switch entry.action {
        case "created":
            events.insert(.created)
            if let entered = entry.statusAfter.flatMap(OutboxEvent.init(rawValue:)), entered != .created {
                events.insert(entered)
            }
        case "placed", "advanced", "cancelled":
            if let entered = entry.statusAfter.flatMap(OutboxEvent.init(rawValue:)), entered != .created {
                events.insert(entered)
            }
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
