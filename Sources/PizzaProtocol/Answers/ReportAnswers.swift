public import PizzaCore

/// `report.x`, `report.z` and `report.get` answer the report itself (CONTRACT section 18).
extension ZReport: Answer {}

/// `report.list {after?, limit?}`: reports oldest first, and the number to ask after for more.
public struct ReportListAnswer: Answer, Equatable {
    /// The reports.
    public var reports: [ZReport]
    /// The last number of a full page, to pass as `after`; null at the end.
    public var next: Int64?

    /// An answer.
    public init(reports: [ZReport], next: Int64?) {
        self.reports = reports
        self.next = next
    }
}

/// `report.verify {number}`: `{number, ok, firstDifference?}`.
public struct ReportVerifyAnswer: Answer, Equatable {
    /// The report checked.
    public var number: Int64
    /// Whether its figures are what its audit entries make, and the tables agree with the log.
    public var ok: Bool
    /// The first figure that differs (`taxes[food].gross`), or the row that disagrees with its entry.
    public var firstDifference: String?

    /// An answer.
    public init(number: Int64, ok: Bool, firstDifference: String?) {
        self.number = number
        self.ok = ok
        self.firstDifference = firstDifference
    }
}

/// `menu.setAvailable {item, available}`: the item as it now is.
public struct AvailabilityAnswer: Answer, Equatable {
    /// The menu item (a kind, a product or an extra).
    public var item: String
    /// Whether it may be ordered.
    public var available: Bool

    /// An answer.
    public init(item: String, available: Bool) {
        self.item = item
        self.available = available
    }
}
