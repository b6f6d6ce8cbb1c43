/// What can be done to orders, each with its one spelling: the control socket's method name, the metrics'
/// `operation` label, the repository's name for a failed change and what pizzactl sends.
public enum OrderOperation: String, CaseIterable, Sendable, CustomStringConvertible {
    case create = "order.create"
    case addItem = "order.addItem"
    case removeItem = "order.removeItem"
    case place = "order.place"
    case advance = "order.advance"
    case cancel = "order.cancel"
    case setFulfilment = "order.setFulfilment"
    case discount = "order.discount"
    case pay = "order.pay"
    case refund = "order.refund"
    case get = "order.get"
    case list = "order.list"

    /// The operations that change an order (through the repository's writer).
    public static let changes: [OrderOperation] = [
        .create, .addItem, .removeItem, .place, .advance, .cancel, .setFulfilment, .discount, .pay, .refund,
    ]

    /// The method name, `order.create`.
    public var description: String { rawValue }
}
