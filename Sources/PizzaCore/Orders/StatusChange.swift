/// One status change of an order, with who made it and when.
public struct StatusChange: Sendable, Equatable {
    /// The status before, nil for the creation.
    public var from: OrderStatus?
    public var to: OrderStatus
    public var at: Timestamp
    public var actor: ChangeActor
    /// Why, for cancellations.
    public var reason: String?

    public init(from: OrderStatus?, to: OrderStatus, at: Timestamp, actor: ChangeActor, reason: String? = nil) {
        self.from = from
        self.to = to
        self.at = at
        self.actor = actor
        self.reason = reason
    }
}
