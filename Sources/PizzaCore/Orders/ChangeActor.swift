/// Who made a change: the peer of the control-socket connection, a device over the order API, or the daemon itself.
public struct ChangeActor: Sendable, Hashable, Codable {
    /// The user id (from `SO_PEERCRED`); for a change over the order API, the daemon's own.
    public var uid: UInt32
    /// The user name for `uid`, or the number as text when it has none.
    public var name: String
    /// The process id of the peer; for a change over the order API, the daemon's own.
    public var pid: Int32
    /// The order API's device that asked for the change (`pizzactl device add NAME`); nil over the control socket.
    public var device: String?
    /// The device's peer address (`192.0.2.7:53122`, `[2001:db8::7]:53122`); nil over the control socket.
    public var address: String?

    /// An actor: a process by uid, name and pid, and for the order API the device and its address.
    public init(uid: UInt32, name: String, pid: Int32, device: String? = nil, address: String? = nil) {
        self.uid = uid
        self.name = name
        self.pid = pid
        self.device = device
        self.address = address
    }
}

extension ChangeActor {
    enum CodingKeys: String, CodingKey { case uid, name, pid, device, address }

    /// `{uid, name, pid}`, and `device` and `address` only for a change over the order API (as the wire writes it).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uid, forKey: .uid)
        try container.encode(name, forKey: .name)
        try container.encode(pid, forKey: .pid)
        if let device { try container.encode(device, forKey: .device) }
        if let address { try container.encode(address, forKey: .address) }
    }
}
