/// What a device of the order API may do (CONTRACT section 15): the rights of its role, nothing else.
public enum DeviceRole: String, Sendable, CaseIterable, Codable {
    /// A till: the menu, new orders, placing and cancelling them, reading them.
    case till
    /// A kitchen screen: advancing orders, reading them, the event stream.
    case kitchen
    /// A read-only screen or report: reading orders, the event stream.
    case reader
    /// A delivery platform or online shop: new orders, cancelling, paying (tender `platform`), changing the
    /// fulfilment of and reading the orders it created.
    case platform
    /// The shop's manager (CONTRACT sections 17-18): what a till may, and discounts, refunds, availability.
    case manager

    /// One thing a request may ask for.
    public enum Right: String, Sendable, CaseIterable {
        case menu, create, place, advance, cancel, read, events
        /// Payments and the fulfilment (CONTRACT section 17).
        case pay, fulfil
        /// Discounts, refunds and availability ("86").
        case discount, refund, availability
        /// The day's reports: X, Z (CONTRACT section 18).
        case reports
    }

    /// The rights of the role.
    public var rights: Set<Right> { Set(Right.allCases.filter(may)) }

    /// Whether the role has `right`: asked on every request, so without building a set.
    public func may(_ right: Right) -> Bool {
        switch (self, right) {
        case (.till, .menu), (.till, .create), (.till, .place), (.till, .cancel), (.till, .read), (.till, .pay),
            (.till, .fulfil):
            true
        case (.kitchen, .advance), (.kitchen, .read), (.kitchen, .events), (.kitchen, .availability): true
        case (.reader, .read), (.reader, .events): true
        case (.platform, .create), (.platform, .cancel), (.platform, .read), (.platform, .pay), (.platform, .fulfil):
            true
        case (.manager, .advance): false
        case (.manager, _): true
        default: false
        }
    }

    /// Whether the role may read and cancel only the orders its own device created.
    public var ownOrdersOnly: Bool { self == .platform }
}
