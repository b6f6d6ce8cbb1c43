/// What a device of the order API may do (CONTRACT section 15): the rights of its role, nothing else.
public enum DeviceRole: String, Sendable, CaseIterable, Codable {
    /// A till: the menu, new orders, placing and cancelling them, reading them.
    case till
    /// A kitchen screen: advancing orders, reading them, the event stream.
    case kitchen
    /// A read-only screen or report: reading orders, the event stream.
    case reader
    /// A delivery platform or online shop: new orders, cancelling and reading the orders it created.
    case platform

    /// One thing a request may ask for.
    public enum Right: String, Sendable, CaseIterable {
        case menu, create, place, advance, cancel, read, events
    }

    /// The rights of the role.
    public var rights: Set<Right> { Set(Right.allCases.filter(may)) }

    /// Whether the role has `right`: asked on every request, so without building a set.
    public func may(_ right: Right) -> Bool {
        switch (self, right) {
        case (.till, .menu), (.till, .create), (.till, .place), (.till, .cancel), (.till, .read): true
        case (.kitchen, .advance), (.kitchen, .read), (.kitchen, .events): true
        case (.reader, .read), (.reader, .events): true
        case (.platform, .create), (.platform, .cancel), (.platform, .read): true
        default: false
        }
    }

    /// Whether the role may read and cancel only the orders its own device created.
    public var ownOrdersOnly: Bool { self == .platform }
}
