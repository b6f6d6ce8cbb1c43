#if canImport(Glibc)
import Glibc
#endif

/// Sockets passed by systemd's socket activation (`LISTEN_FDS`, `LISTEN_PID`, `LISTEN_FDNAMES`).
/// See sd_listen_fds(3).
enum SocketActivation {
    static let firstDescriptor: Int32 = 3

    /// The passed listening Unix stream socket, or nil when the daemon was not socket-activated. Clears the
    /// variables so child processes do not inherit them.
    static func listeningSocket(environment: [String: String]) -> (descriptor: Int32, name: String?)? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0
        else { return nil }
        let names = environment["LISTEN_FDNAMES"]?.split(separator: ":", omittingEmptySubsequences: false).map(String.init) ?? []
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        for offset in 0..<count {
            let fd = firstDescriptor + offset
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard isListeningUnixStream(fd) else { continue }
            return (fd, names.indices.contains(Int(offset)) ? names[Int(offset)] : nil)
        }
        return nil
    }

    private static func isListeningUnixStream(_ fd: Int32) -> Bool {
        var type: Int32 = 0
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue) else {
            return false
        }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else { return false }
        var address = sockaddr_storage()
        var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &addressLength) == 0 }
        }
        return ok && Int32(address.ss_family) == AF_UNIX
    }
}
