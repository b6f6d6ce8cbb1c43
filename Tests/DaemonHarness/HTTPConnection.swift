import Foundation
import PizzaTesting

/// A plain TCP connection to a loopback port: HTTP as a scraper sends it, or as a hostile client does.
public final class HTTPConnection {
    public let descriptor: Int32

    /// Connects to `host:port` (an IPv4 or IPv6 literal). `receiveBuffer`, set before connecting, caps the window
    /// this side offers: a reader that never reads then holds little, and a sender fills it quickly.
    /// `source`, an IPv4 loopback address (any of 127.0.0.0/8), makes the connection come from another host as the
    /// server sees it (its per-address limits).
    public init(port: Int, host: String = "127.0.0.1", receiveBuffer: Int32? = nil, source: String? = nil) throws {
        let six = host.contains(":")
        // Kept only once connected: a throw after every stored property is set runs `deinit`, which would close the
        // descriptor a second time (see RawConnection).
        let descriptor = socket(
            six ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source, !six {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw HarnessError("cannot connect from \(source): \(reason)")
            }
        }
        var storage = sockaddr_storage()
        let length = withUnsafeMutableBytes(of: &storage) { raw -> Int in
            if six {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(UInt16(port).bigEndian)
                inet_pton(AF_INET6, host, &address.sin6_addr)
                withUnsafeBytes(of: &address) { raw.copyMemory(from: $0) }
                return MemoryLayout<sockaddr_in6>.size
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            withUnsafeBytes(of: &address) { raw.copyMemory(from: $0) }
            return MemoryLayout<sockaddr_in>.size
        }
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(length)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw HarnessError("cannot connect to \(host):\(port): \(reason)")
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Says no more will be sent (a half-close), as a client that sends its request and shuts its side does.
    public func finishSending() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Reads until the peer closes, what came contains `marker` (when given), or `timeout` passes; returns what
    /// came and whether the peer closed.
    public func readUntilClosed(timeout: Double, orSeen marker: String? = nil) -> (text: String, closed: Bool) {
        var data = [UInt8]()
        let deadline = TimeLimit(seconds: timeout)
        while deadline.remains {
            if let marker, String(decoding: data, as: UTF8.self).contains(marker) { break }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, deadline.secondsLeft * 1000)))
            if ready <= 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: data, as: UTF8.self), true) }
            data += buffer[..<count]
        }
        return (String(decoding: data, as: UTF8.self), false)
    }

    /// Reads one response whose length the `Content-Length` header gives (keep-alive).
    public func readResponse(timeout: Double = 10) throws -> HTTPResponse {
        var data = [UInt8]()
        let deadline = TimeLimit(seconds: timeout)
        while deadline.remains {
            if let response = HTTPResponse(parsing: data), response.body.utf8.count >= response.contentLength {
                return response
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data += buffer[..<count]
        }
        guard let response = HTTPResponse(parsing: data) else {
            throw HarnessError("no complete response within \(timeout)s; got: \(String(decoding: data, as: UTF8.self))")
        }
        return response
    }
}

/// A parsed HTTP response.
public struct HTTPResponse: CustomStringConvertible {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: String

    public var contentLength: Int { headers["content-length"].flatMap(Int.init) ?? 0 }
    public var description: String { "\(status) \(headers)\n\(body.prefix(2000))" }

    public init?(parsing data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<end.lowerBound].split(separator: "\r\n")
        guard let first = lines.first, first.hasPrefix("HTTP/1."), let code = Int(first.split(separator: " ")[1]) else {
            return nil
        }
        status = code
        headers = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        body = String(text[end.upperBound...])
    }
}

/// `GET path` on a connection of its own, closed after the answer. HTTP/1.0 makes servers that would chunk a
/// long answer (Prometheus) send it plain.
public func httpGet(
    port: Int, _ path: String, host: String = "127.0.0.1", method: String = "GET", version: String = "1.1"
) throws -> HTTPResponse {
    let connection = try HTTPConnection(port: port, host: host)
    try connection.send("\(method) \(path) HTTP/\(version)\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
    let (text, _) = connection.readUntilClosed(timeout: 15)
    guard let response = HTTPResponse(parsing: Array(text.utf8)) else {
        throw HarnessError("no HTTP response: \(text)")
    }
    return response
}

/// A TCP port on 127.0.0.1 that nothing listens on right now.
public func freeLoopbackPort() throws -> Int {
    let (fd, port) = try boundLoopbackSocket()
    close(fd)
    return port
}

/// A TCP socket bound to a free port on 127.0.0.1 and not listening: while it is open, every connect to the port is
/// refused. The caller closes it.
public func boundLoopbackSocket() throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard ok else {
        let reason = String(cString: strerror(errno))
        close(fd)
        throw HarnessError("cannot find a free port: \(reason)")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
