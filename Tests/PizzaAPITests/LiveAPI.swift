import Foundation
import Logging
import NIOPosix
import PizzaAPI
import PizzaTesting
import ServiceLifecycle
import Testing

extension APIFixture {
    /// Runs `body` with the order API served in process on a loopback port, as pizzad serves it (plain HTTP/1.1:
    /// Hummingbird's channel with the on-loop path for changes, the deadlines and the connection cap), given the
    /// port; the server is shut down gracefully after. Its event loops and the threads its handlers run on are its own
    /// (``DaemonThreads``), as a pizzad process's would be: on the shared pool, a GET had no answer within 10 s in a CI
    /// run while other suites blocked the pool's two threads.
    func live<Value: Sendable>(_ body: @Sendable (Int) async throws -> Value) async throws -> Value {
        var logger = Logger(label: "pizzad-api-test")
        logger.logLevel = .critical
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let threads = DaemonThreads(name: "api-live")
        defer { threads.finish() }
        let server = try await APIServer(
            api: api, listener: .address(host: "127.0.0.1", port: 0), group: loops, logger: logger)
        let port = try #require(server.address.split(separator: ":").last.flatMap { Int($0) })
        let group = ServiceGroup(services: [server], gracefulShutdownSignals: [], logger: logger)
        let served = try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask(executorPreference: threads) { try await group.run() }
            let result: Result<Value, any Error>
            do {
                result = .success(try await body(port))
            } catch {
                result = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        }
        try await loops.shutdownGracefully()
        return try served.get()
    }
}

/// One HTTP/1.1 exchange over a plain TCP connection to 127.0.0.1, the bytes as given (so that a header can be
/// anything a hostile client sends), read until the server closes or `timeout` passes; run on a thread of its own,
/// not the concurrency pool the server's handlers share.
enum RawHTTP {
    struct Failed: Error, CustomStringConvertible { let description: String }

    /// The bytes the server answered `request` with on a new connection to `port` (it is asked to close after).
    static func exchange(port: Int, _ request: [UInt8], timeout: Duration = .seconds(10)) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try blockingExchange(port: port, request, timeout: timeout) })
            }.start()
        }
    }

    /// Runs `body` (blocking socket calls) on a thread of its own, off the pool the server's handlers share.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// `head` (CRLFs added) and `body` as a request's bytes.
    static func request(_ head: [String], body: String = "") -> [UInt8] {
        Array((head.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    /// The status code of an answer's first line, or nil when there was none.
    static func status(_ answer: String) -> Int? {
        let line = answer.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = line.split(separator: " ")
        return parts.count >= 2 && parts[0].hasPrefix("HTTP/1.") ? Int(parts[1]) : nil
    }

    /// A TCP connection to 127.0.0.1:`port` from the loopback address `source` (any of 127.0.0.0/8 is this
    /// machine's: another host, as the server sees it), its descriptor; the caller closes it.
    /// With `receiveBuffer`, the socket's receive buffer is set before it connects (so the window it offers stays
    /// that small: a client that reads slowly, with little in flight).
    static func connection(
        port: Int, from source: String = "127.0.0.1", timeout: Duration = .seconds(10), receiveBuffer: Int32? = nil
    ) throws -> Int32 {
        guard
            let fd = LoopbackTCP.connect(
                port: port, from: source, receiveTimeoutSeconds: Int(timeout.components.seconds),
                receiveBuffer: receiveBuffer)
        else { throw Failed(description: "connect from \(source): errno \(errno)") }
        return fd
    }

    /// Whether the server has closed `fd` (a read finds its end) without waiting for it.
    static func closedByServer(_ fd: Int32) -> Bool { LoopbackTCP.closedByServer(fd) }

    private static func blockingExchange(port: Int, _ request: [UInt8], timeout: Duration) throws -> String {
        let fd = try connection(port: port, timeout: timeout)
        defer { close(fd) }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { break }  // the server may close early on a request it refuses; read its answer
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
