import Foundation
import PizzaTesting

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`: receives sd_notify messages with the sender's
/// pid (`SO_PASSCRED`).
public final class NotifyListener {
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw HarnessError("bind \(path): \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// One message and its sender's pid, or nil when none came within 200 ms.
    public func receive() -> (message: String, pid: Int32)? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var control = [UInt8](repeating: 0, count: 64)
        return buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = controlBytes.count
                    let count = recvmsg(fd, &header, 0)
                    guard count >= 0 else { return nil }
                    let message = String(decoding: UnsafeRawBufferPointer(rebasing: data[..<count]), as: UTF8.self)
                    // struct cmsghdr { size_t len; int level; int type; } then struct ucred { pid, uid, gid }.
                    var pid: Int32 = 0
                    if header.msg_controllen >= 16 + 12 {
                        let level = controlBytes.load(fromByteOffset: 8, as: Int32.self)
                        let type = controlBytes.load(fromByteOffset: 12, as: Int32.self)
                        if level == SOL_SOCKET, type == 2 {  // SCM_CREDENTIALS
                            pid = controlBytes.load(fromByteOffset: 16, as: Int32.self)
                        }
                    }
                    return (message, pid)
                }
            }
        }
    }

    /// Collects messages until `done` says enough or `timeout` passes.
    public func collect(timeout: Double, until done: ([(message: String, pid: Int32)]) -> Bool) -> [(
        message: String, pid: Int32
    )] {
        var messages: [(message: String, pid: Int32)] = []
        let deadline = TimeLimit(seconds: timeout)
        while deadline.remains, !done(messages) {
            if let message = receive() { messages.append(message) }
        }
        return messages
    }
}
