/// A change a caller asks ``OrderRepository`` for: what ``OrderRepository/submit(_:by:completion:)`` takes, and
/// what each of the repository's `async` change methods names.
public enum ChangeRequest: Sendable {
    /// A new order, optionally with pizzas and placed at once. With a `ref` that exists, that order unchanged (an
    /// idempotent retry).
    case create(NewOrder)
    /// A pizza added to an open order.
    case addItem(Pizza, order: Int64)
    /// A product line added to an open order.
    case addProduct(Product, order: Int64)
    /// How the order reaches its customer, changed before it ships (with the menu's delivery fee, if any).
    case setFulfilment(Fulfilment, deliveryFee: Fee?, order: Int64)
    /// A discount on the order or one of its items.
    case discount(Cart.DiscountSize, item: Int64?, reason: String, order: Int64)
    /// A payment (the same `ref` again is the same payment).
    case pay(Tender, amount: Int64, ref: String?, order: Int64)
    /// A refund of (part of) a payment.
    case refund(payment: Int64, amount: Int64, reason: String, order: Int64)
    /// An item removed from an open order.
    case removeItem(Int64, order: Int64)
    /// An open order that has items, placed.
    case place(order: Int64)
    /// An order moved one step forward; with `from`, only if it is in that status.
    case advance(order: Int64, from: OrderStatus?)
    /// An order that has not shipped, cancelled.
    case cancel(order: Int64, reason: String)

    /// The operation it is.
    public var operation: OrderOperation {
        switch self {
        case .create: .create
        case .addItem, .addProduct: .addItem
        case .setFulfilment: .setFulfilment
        case .discount: .discount
        case .pay: .pay
        case .refund: .refund
        case .removeItem: .removeItem
        case .place: .place
        case .advance: .advance
        case .cancel: .cancel
        }
    }
}
