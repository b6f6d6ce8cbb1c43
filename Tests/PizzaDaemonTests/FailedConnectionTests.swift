import DaemonHarness
import Foundation
import PizzaCore
import PizzaTesting
import Testing

/// The harness's connections, when they fail: tests run in parallel in one process, so a descriptor closed twice
/// closes whatever another test opened under that number in between (a pipe to a child, a socket to a daemon).
@Suite("The harness's connections that fail", .offThePool)
struct FailedConnectionTests {
    @Test(
        "a failed connect closes its socket once: a thread opening socket pairs meanwhile keeps every one of them",
        arguments: ["unix", "tcp"])
    func failedConnectClosesOnce(kind: String) throws {
        let temporary = try TemporaryFolder("pizzad-failed-connect")
        defer { temporary.remove() }
        let folder = temporary.path
        // A loopback port that is bound and never listens: every connect to it is refused at once.
        let (unused, port) = try boundLoopbackSocket()
        defer { close(unused) }

        // The other thread: opens a socket pair, checks that a byte goes through it, closes it; again until told to
        // stop. Were a failed connect to close its descriptor twice, the second close would hit one of these ends.
        // (A socket pair rather than a pipe: a pipe whose reading end went would kill the process with SIGPIPE.)
        let stop = Locked(false)
        let lost = Locked<[String]>([])
        let finished = DispatchSemaphore(value: 0)
        let opener = Thread {
            defer { finished.signal() }
            while !stop.value {
                var ends: [Int32] = [0, 0]
                guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0
                else { continue }
                var byte: UInt8 = 42
                let through =
                    send(ends[1], &byte, 1, Int32(MSG_NOSIGNAL)) == 1
                    && recv(ends[0], &byte, 1, Int32(MSG_DONTWAIT)) == 1
                    && byte == 42
                let open = fcntl(ends[0], F_GETFD) >= 0 && fcntl(ends[1], F_GETFD) >= 0
                if !through || !open {
                    let reason = String(cString: strerror(errno))
                    lost.withLock { $0.append("socket pair \(ends): \(reason)") }
                }
                close(ends[0])
                close(ends[1])
            }
        }
        opener.start()

        // This thread: connects that fail, each expected to fail only as refused (or absent), never on a descriptor
        // gone from under it.
        var unexpected: [String] = []
        for _ in 0..<20_000 {
            do {
                if kind == "unix" {
                    _ = try RawConnection(path: folder + "/nobody.sock")
                } else {
                    _ = try HTTPConnection(port: port)
                }
                unexpected.append("a connect succeeded")
            } catch {
                let text = "\(error)"
                if !text.contains("No such file or directory") && !text.contains("Connection refused") {
                    unexpected.append(text)
                }
            }
            if unexpected.count > 10 || !lost.value.isEmpty { break }
        }
        stop.withLock { $0 = true }
        finished.wait()
        #expect(lost.value.isEmpty, "descriptors of the other thread closed under it: \(lost.value.prefix(5))")
        #expect(unexpected.isEmpty, "\(unexpected.prefix(5))")
    }
}
