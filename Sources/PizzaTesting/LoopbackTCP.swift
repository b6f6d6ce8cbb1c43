import Glibc

/// TCP connections to a port on this machine from any loopback address (127.0.0.0/8 is all this machine's, so
/// 127.0.0.2 is "another host" as the server sees it): what the tests' and pizzabench's hostile clients and tills use.
public enum LoopbackTCP {
    /// A connection to 127.0.0.1:`port` from `source`, its descriptor (the caller closes it), or nil. With
    /// `receiveTimeoutSeconds`, a read waits at most that long; with `receiveBuffer`, the socket's receive buffer is
    /// set before it connects (so the window it offers stays that small: a client that reads slowly).
    public static func connect(
        port: Int, from source: String = "127.0.0.1", receiveTimeoutSeconds: Int? = nil, receiveBuffer: Int32? = nil
    ) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        if let receiveTimeoutSeconds {
            var wait = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        }
        if var receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &local) { local in
            withUnsafePointer(to: &remote) { remote in
                local.withMemoryRebound(to: sockaddr.self, capacity: 1) { local in
                    remote.withMemoryRebound(to: sockaddr.self, capacity: 1) { remote in
                        bind(fd, local, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                            && Glibc.connect(fd, remote, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
            }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }

    /// How many connections from the loopback address `from` to 127.0.0.1:`port` are still established on the
    /// client's side (one the server closed is in CLOSE-WAIT there), as `ss` lists them: for connections another
    /// process holds (``HeldConnections``).
    public static func established(to port: Int, from: String) throws -> Int {
        let listed = try ChildProcess.run(
            "/usr/bin/env", ["ss", "-Htn", "state", "established", "( dport = :\(port) and src \(from) )"])
        guard listed.status == 0 else { throw HarnessError("ss: \(listed.output)") }
        return listed.output.split(separator: "\n").count
    }

    /// How many connections to the listener on `port` wait in its accept queue, not yet taken by the server (its
    /// `Recv-Q` in `ss`): zero once the server has accepted all that connected.
    public static func waitingToBeAccepted(port: Int) throws -> Int {
        let listed = try ChildProcess.run("/usr/bin/env", ["ss", "-Hltn", "( sport = :\(port) )"])
        guard listed.status == 0 else { throw HarnessError("ss: \(listed.output)") }
        return listed.output.split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst().first }
            .compactMap { Int($0) }.reduce(0, +)
    }

    /// Whether the server has closed `fd` (a read finds its end), without waiting.
    public static func closedByServer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }
}
