/// One page of orders and the cursor for the next.
public struct OrderPage: Sendable, Equatable {
    /// The page's orders, newest first.
    public var orders: [Cart]
    /// Pass as `after` to get the next page; nil on the last page.
    public var next: Int64?

    /// A page, and the cursor to the next (nil when there is none).
    public init(orders: [Cart], next: Int64?) {
        self.orders = orders
        self.next = next
    }
}
