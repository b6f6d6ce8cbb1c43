#if canImport(Glibc)
    import Glibc
#endif

/// Sockets passed by systemd's socket activation (`LISTEN_FDS`, `LISTEN_PID`, `LISTEN_FDNAMES`), told apart by
/// their names: `pizzad.sock` (systemd/pizzad.socket) is the control socket, `metrics`
/// (systemd/pizzad-metrics.socket) the HTTP metrics endpoint. See sd_listen_fds(3).
struct SocketActivation: Sendable {
    /// One passed listening stream socket.
    struct PassedSocket: Sendable, Equatable {
        let descriptor: Int32
        /// Its `FileDescriptorName=`, if systemd gave one.
        let name: String?
        /// `AF_UNIX`, `AF_INET` or `AF_INET6`.
        let family: Int32

        var isUnix: Bool { family == AF_UNIX }
    }

    static let firstDescriptor: Int32 = 3
    /// The name `pizzad-metrics.socket` gives its socket (`FileDescriptorName=metrics`).
    static let metricsName = "metrics"
    /// The name `pizzad-board.socket` gives its socket (`FileDescriptorName=board`).
    static let boardName = "board"
    /// The name `pizzad-api.socket` gives its socket (`FileDescriptorName=api`).
    static let apiName = "api"

    /// Every passed listening stream socket; empty when the daemon was not socket-activated.
    let sockets: [PassedSocket]

    /// The sockets passed to this process. Clears the variables so child processes do not inherit them.
    init(environment: [String: String]) {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0
        else {
            sockets = []
            return
        }
        let names =
            environment["LISTEN_FDNAMES"]?.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            ?? []
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        var sockets: [PassedSocket] = []
        for offset in 0..<count {
            let fd = Self.firstDescriptor + offset
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard let family = Self.listeningStreamFamily(fd) else { continue }
            let name = names.indices.contains(Int(offset)) ? names[Int(offset)] : nil
            sockets.append(PassedSocket(descriptor: fd, name: name, family: family))
        }
        self.sockets = sockets
    }

    /// The control socket: the first Unix socket not named `metrics`.
    var control: PassedSocket? {
        sockets.first { $0.isUnix && $0.name != Self.metricsName && $0.name != Self.boardName }
    }

    /// The board's socket: the one named `board`.
    var board: PassedSocket? { sockets.first { $0.name == Self.boardName } }

    /// The order API's socket: the one named `api`.
    var api: PassedSocket? { sockets.first { $0.name == Self.apiName } }

    /// The metrics socket: the one named `metrics`, or else the first TCP socket.
    var metrics: PassedSocket? {
        sockets.first { $0.name == Self.metricsName }
            ?? sockets.first {
                !$0.isUnix && $0.name != "pizzad.sock" && $0.name != Self.boardName && $0.name != Self.apiName
            }
    }

    /// The address family of `fd` when it is a listening stream socket of a family pizzad serves, else nil.
    private static func listeningStreamFamily(_ fd: Int32) -> Int32? {
        var type: Int32 = 0
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue) else {
            return nil
        }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else { return nil }
        var address = sockaddr_storage()
        var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &addressLength) == 0 }
        }
        let family = Int32(address.ss_family)
        return ok && [AF_UNIX, AF_INET, AF_INET6].contains(family) ? family : nil
    }
}
