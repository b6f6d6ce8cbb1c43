/// Which orders to list.
public struct OrderQuery: Sendable, Equatable {
    /// The page sizes allowed, for orders and audit entries alike.
    public static let limitRange = 1...1000

    /// `limit` as a page size; throws ``OrderError/validation(field:allowed:message:)`` outside ``limitRange``.
    public static func checkedLimit(_ limit: Int64) throws(OrderError) -> Int {
        guard limit >= limitRange.lowerBound, limit <= limitRange.upperBound else {
            throw OrderError.validation(
                field: "limit", allowed: ["\(limitRange.lowerBound)..\(limitRange.upperBound)"],
                message: "limit \(limit) is out of range")
        }
        return Int(limit)
    }
    /// Only orders in this status.
    public var status: OrderStatus?
    /// Only orders created at or after this time.
    public var since: Timestamp?
    /// Page size, 1…1000.
    public var limit: Int
    /// The cursor: list orders after this one in the page's order (newest first: with an id below it).
    public var after: Int64?
    /// Only orders of this fulfilment type.
    public var type: Fulfilment.Kind?
    /// The order of the page.
    public var sort: Sort

    /// How a page is ordered.
    public enum Sort: String, Sendable, CaseIterable {
        /// Newest first (by id, descending): the default.
        case newest
        /// By when each order is wanted, soonest first: its `dueAt`, or when it was made for as soon as possible.
        case due
    }

    /// Orders in `status` (all when nil), created since `since`, of `type`, at most `limit`, after the order
    /// `after`, in `sort`'s order.
    public init(
        status: OrderStatus? = nil, since: Timestamp? = nil, limit: Int = 50, after: Int64? = nil,
        type: Fulfilment.Kind? = nil, sort: Sort = .newest
    ) {
        self.status = status
        self.since = since
        self.limit = limit
        self.after = after
        self.type = type
        self.sort = sort
    }
}
