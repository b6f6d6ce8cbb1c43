import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// `struct ucred` from socket(7), as `getsockopt(SO_PEERCRED)` fills it (Glibc does not export it to Swift).
struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0

    /// Who is at the other end of `channel`, a Unix socket, as the kernel says (not as the client claims).
    static func of(_ channel: any Channel) -> EventLoopFuture<Peer> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return credentials.map { Peer(uid: $0.uid, gid: $0.gid, pid: $0.pid) }
    }
}
