import CSystemShims
import Foundation

/// A plain blocking Unix-socket connection for sending exactly the bytes a test wants, good or bad.
///
/// One thread uses it at a time; it blocks, so keep it off Swift's cooperative pool (use plain threads).
public final class RawConnection {
    /// Why a raw connection failed: the system call and its error.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The socket's file descriptor, for tests that shut it down half-way or make it non-blocking.
    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to the Unix socket at `path`; reads give up after `seconds`.
    public init(path: String, receiveTimeout seconds: Int = 10) throws {
        // The descriptor is kept only once connected. A class whose stored properties are all set runs its
        // `deinit` when its initializer throws, so a failed connect that closed `self.fd` would close it twice,
        // the second time closing whatever another thread had opened under that number meanwhile.
        // Close-on-exec: a program another test starts meanwhile must not hold this connection open after it.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(String(cString: strerror(errno)))") }
        let result = pizzad_connect_unix(fd, path)
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure("connect \(path): \(String(cString: strerror(code)))")
        }
        self.fd = fd
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends `text` as UTF-8, all of it.
    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends `bytes`, all of them.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw Failure("send failed: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// The next line, without its newline; nil when the daemon closed the connection.
    public func readLine() throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return nil }
            guard count > 0 else { throw Failure("recv: \(String(cString: strerror(errno)))") }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends one request line and returns the response line parsed as JSON.
    public func request(_ line: String) throws -> [String: Any] {
        try send(line + "\n")
        guard let response = try readLine() else { throw Failure("connection closed") }
        guard let object = try JSONSerialization.jsonObject(with: Data(response.utf8)) as? [String: Any] else {
            throw Failure("not an object: \(response)")
        }
        return object
    }
}

extension [String: Any] {
    /// The `error.code` of a response, if it is an error.
    public var errorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }
    /// The `result` object of a response, if it has one.
    public var result: [String: Any]? { self["result"] as? [String: Any] }
    /// The `error.data` object of a response, if it has one.
    public var errorData: [String: Any]? { (self["error"] as? [String: Any])?["data"] as? [String: Any] }
}
