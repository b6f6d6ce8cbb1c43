/// Why a change to an order was refused. Each case maps to one application error code on the socket.
public enum OrderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No order with that id or ref (`not_found`).
    case notFound(String)
    /// No item with that id in the order (`not_found`).
    case itemNotFound(orderID: Int64, itemID: Int64)
    /// The status machine does not allow it (`invalid_transition`).
    case invalidTransition(id: Int64, InvalidTransition)
    /// Items can only change while the order is open (`invalid_transition`).
    case notOpen(id: Int64, status: OrderStatus)
    /// An order without items cannot be placed (`invalid_transition`).
    case emptyCart(id: Int64)
    /// The order is not in the status the caller expected (`conflict`).
    case conflict(id: Int64, expected: OrderStatus, actual: OrderStatus)
    /// A field's value is not allowed (`validation`).
    case validation(field: String, allowed: [String], message: String)
    /// The change is no longer possible in the order's status, e.g. a discount once shipped (`invalid_transition`).
    case tooLate(id: Int64, status: OrderStatus, change: String)
    /// A payment's `ref` is already the order's for another amount or tender (`conflict`).
    case refConflict(id: Int64, ref: String)

    public var description: String {
        switch self {
        case .notFound(let what): "no order \(what)"
        case .itemNotFound(let orderID, let itemID): "order \(orderID) has no item \(itemID)"
        case .invalidTransition(let id, let invalid): "order \(id): \(invalid)"
        case .notOpen(let id, let status): "order \(id) is \(status.rawValue); items can change only while open"
        case .emptyCart(let id): "order \(id) has no items; add a pizza before placing it"
        case .conflict(let id, let expected, let actual):
            "order \(id) is \(actual.rawValue), not \(expected.rawValue); someone else moved it"
        case .validation(_, _, let message): message
        case .tooLate(let id, let status, let change):
            "order \(id) is \(status.rawValue); \(change) only before it is shipped"
        case .refConflict(let id, let ref):
            "order \(id) already has a payment with ref '\(ref)' of another amount or tender"
        }
    }
}
