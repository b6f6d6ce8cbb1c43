/// Who made a change: the peer of the control-socket connection, or the daemon itself.
public struct ChangeActor: Sendable, Hashable, Codable {
    /// The user id (from `SO_PEERCRED`).
    public var uid: UInt32
    /// The user name for `uid`, or the number as text when it has none.
    public var name: String
    /// The process id of the peer.
    public var pid: Int32

    public init(uid: UInt32, name: String, pid: Int32) {
        self.uid = uid
        self.name = name
        self.pid = pid
    }
}
