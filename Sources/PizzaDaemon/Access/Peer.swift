public import PizzaCore

#if canImport(Glibc)
    import Glibc
#endif

/// The process at the other end of a control-socket connection, from `SO_PEERCRED`.
public struct Peer: Sendable {
    /// The peer's user id (`SO_PEERCRED`).
    public var uid: UInt32
    /// The peer's group id.
    public var gid: UInt32
    /// The peer's process id.
    public var pid: Int32
    /// The user name, or the uid as text when the user has none.
    public var userName: String
    /// Names of the user's groups (primary and supplementary).
    public var groups: Set<String>

    /// Looks up the user's name and groups (`getpwuid_r`, `getgrouplist`).
    public init(uid: UInt32, gid: UInt32, pid: Int32) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
        let name = Self.userName(of: uid)
        self.userName = name ?? String(uid)
        var groups: Set<String> = []
        if let primary = Self.groupName(of: gid) { groups.insert(primary) }
        if let name {
            var count: Int32 = 64
            var ids = [gid_t](repeating: 0, count: Int(count))
            if getgrouplist(name, gid, &ids, &count) == -1 {
                ids = [gid_t](repeating: 0, count: Int(count))
                _ = getgrouplist(name, gid, &ids, &count)
            }
            for id in ids.prefix(Int(max(count, 0))) {
                if let group = Self.groupName(of: id) { groups.insert(group) }
            }
        }
        self.groups = groups
    }

    /// The actor recorded for changes made over this connection.
    public var actor: ChangeActor { ChangeActor(uid: uid, name: userName, pid: pid) }

    static func userName(of uid: UInt32) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else {
            return nil
        }
        return String(cString: name)
    }

    static func groupName(of gid: UInt32) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name
        else {
            return nil
        }
        return String(cString: name)
    }

    /// The gid of group `name`, if it exists.
    static func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}
