/// What a change method of ``OrderRepository`` answers: the order as it is now, and the change that made it.
///
/// The change carries the order's wire text as the audit entry encoded it inside the transaction
/// (``OrderChange/afterText``), so the answer to the caller can reuse it instead of encoding the order again.
///
/// A class, immutable: an outcome is handed on several times on its way to the caller (the change's own record,
/// the result, the loop's hand-back, the answer), and a copy of a struct holding the order twice (the cart and the
/// change's `after`) retained each of its two dozen strings and arrays, where a copy of this retains one object.
public final class OrderOutcome: Sendable {
    /// The order after the change (or, for an idempotent retry of `create`, as it was).
    public let cart: Cart
    /// The change; nil when nothing changed (`create` with a `ref` that exists).
    public let change: OrderChange?

    /// The order as it is, and the change made (nil when nothing changed: a replayed ref).
    public init(cart: Cart, change: OrderChange?) {
        self.cart = cart
        self.change = change
    }

    /// Whether the change made a new order (false for an idempotent retry of `create`, and for every other change).
    public var created: Bool { change?.kind == .created }
}
