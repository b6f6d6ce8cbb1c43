/// One status change of an order, with who made it and when.
public struct StatusChange: Sendable, Equatable {
    /// The status before, nil for the creation.
    public var from: OrderStatus?
    /// The status entered.
    public var to: OrderStatus
    /// When.
    public var at: Timestamp
    /// Who made the change.
    public var actor: ChangeActor
    /// Why, for cancellations.
    public var reason: String?

    /// A change from `from` (nil: the creation) to `to`.
    public init(from: OrderStatus?, to: OrderStatus, at: Timestamp, actor: ChangeActor, reason: String? = nil) {
        self.from = from
        self.to = to
        self.at = at
        self.actor = actor
        self.reason = reason
    }
}
