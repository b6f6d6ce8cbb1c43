import Logging
import NIOCore
import NIOPosix
import PizzaProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// `struct ucred` from socket(7), as `getsockopt(SO_PEERCRED)` fills it (Glibc does not export it to Swift).
struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
