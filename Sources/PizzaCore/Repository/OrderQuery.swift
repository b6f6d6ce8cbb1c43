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
    /// The cursor: list orders older than (with an id below) this one.
    public var after: Int64?

    /// Orders in `status` (all when nil), created since `since`, at most `limit`, after the order `after`.
    public init(status: OrderStatus? = nil, since: Timestamp? = nil, limit: Int = 50, after: Int64? = nil) {
        self.status = status
        self.since = since
        self.limit = limit
        self.after = after
    }
}
