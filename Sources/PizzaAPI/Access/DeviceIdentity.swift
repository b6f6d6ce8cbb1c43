public import PizzaCore

/// The device a request authenticated as, and where it came from: what a route checks rights against and what a
/// change records as its actor.
public struct DeviceIdentity: Sendable, Equatable {
    /// The device's name (`till-1`).
    public var name: String
    /// What it may do.
    public var role: DeviceRole
    /// The peer's address, `192.0.2.7:53122` or `[2001:db8::7]:53122`.
    public var address: String

    /// The identity of a request from `name`, a `role`, at `address`.
    public init(name: String, role: DeviceRole, address: String) {
        self.name = name
        self.role = role
        self.address = address
    }

    /// Whether its role has `right`.
    public func may(_ right: DeviceRole.Right) -> Bool { role.may(right) }
}
