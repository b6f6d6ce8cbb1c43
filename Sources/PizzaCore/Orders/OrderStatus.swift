/// Where an order is in its life: `open → placed → preparing → baking → boxed → shipped → delivered`, or
/// `cancelled`.
public enum OrderStatus: String, Sendable, CaseIterable, Codable {
    case open, placed, preparing, baking, boxed, shipped, delivered, cancelled

    /// The status one `advance` leads to, or nil at the end of the line (`delivered`, `cancelled`) and for
    /// `open`, which only `place` leaves.
    public var next: OrderStatus? {
        switch self {
        case .placed: .preparing
        case .preparing: .baking
        case .baking: .boxed
        case .boxed: .shipped
        case .shipped: .delivered
        case .open, .delivered, .cancelled: nil
        }
    }

    /// Whether an order in this status may still be cancelled (never once shipped).
    public var isCancellable: Bool {
        switch self {
        case .open, .placed, .preparing, .baking, .boxed: true
        case .shipped, .delivered, .cancelled: false
        }
    }

    /// Whether the order's life is over: delivered or cancelled (what the board's recall list keeps).
    public var isFinal: Bool { self == .delivered || self == .cancelled }

    /// The statuses of an order under way, in its order of life: every one but the two ends (`delivered`,
    /// `cancelled`). The daemon's status line, the stage histograms and the alerts' oldest-age gauges go by them.
    public static let active: [OrderStatus] = [.open, .placed, .preparing, .baking, .boxed, .shipped]

    /// The statuses the kitchen's board shows, one column each, left to right: placed to shipped. The board page,
    /// `pizzactl board` and the board's snapshot all take them from here.
    public static let onBoard: [OrderStatus] = [.placed, .preparing, .baking, .boxed, .shipped]

    /// Whether items may still be added or removed.
    public var acceptsItems: Bool { self == .open }

    /// The status's place in the order's life, `cancelled` last: what it is hashed by.
    private var ordinal: Int {
        switch self {
        case .open: 0
        case .placed: 1
        case .preparing: 2
        case .baking: 3
        case .boxed: 4
        case .shipped: 5
        case .delivered: 6
        case .cancelled: 7
        }
    }

    /// Hashed by its place, not its raw value, as ``Size`` is: the standard library's default for a
    /// `RawRepresentable` hashes the `String`, and every commit looks its metrics up by status.
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    /// The status `transition` leads to from this one, or the reason it is not allowed.
    public func applying(_ transition: Transition) -> Result<OrderStatus, InvalidTransition> {
        let target: OrderStatus?
        switch transition {
        case .place: target = self == .open ? .placed : nil
        case .advance: target = next
        case .cancel: target = isCancellable ? .cancelled : nil
        }
        guard let target else { return .failure(InvalidTransition(from: self, transition: transition)) }
        return .success(target)
    }
}
