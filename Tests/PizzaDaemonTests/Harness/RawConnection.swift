import Foundation

/// A plain blocking Unix-socket connection for sending exactly the bytes a test wants.
final class RawConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String, receiveTimeout seconds: Int = 10) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw HarnessError("connect \(path): \(String(cString: strerror(code)))")
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw HarnessError("send failed: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// The next line, without its newline; nil when the daemon closed the connection.
    func readLine() throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return nil }
            guard count > 0 else { throw HarnessError("recv: \(String(cString: strerror(errno)))") }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends one request line and returns the response line parsed as JSON.
    func request(_ line: String) throws -> [String: Any] {
        try send(line + "\n")
        guard let response = try readLine() else { throw HarnessError("connection closed") }
        guard let object = try JSONSerialization.jsonObject(with: Data(response.utf8)) as? [String: Any] else {
            throw HarnessError("not an object: \(response)")
        }
        return object
    }
}

extension [String: Any] {
    /// The `error.code` of a response, if it is an error.
    var errorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }
    var result: [String: Any]? { self["result"] as? [String: Any] }
    var errorData: [String: Any]? { (self["error"] as? [String: Any])?["data"] as? [String: Any] }
}
