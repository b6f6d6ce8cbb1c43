import Foundation
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire

/// Hostile clients against a live daemon while legitimate ones work: random and mutated lines over many
/// connections, idle and half-open connections, and a client that never reads its answers.
enum Hostile {
    struct Summary {
        /// Hostile lines sent.
        var lines = 0
        /// Hostile connections whose last request was still answered, out of `connections`.
        var survived = 0
        var connections = 0
        /// Idle and half-open connections held open meanwhile.
        var idle = 0
        /// Whether the daemon stopped reading from the client that never reads (backpressure).
        var silentClientHeldBack = false
        /// Legitimate requests answered while all that went on.
        var served = 0
        var peakRSSMiB = 0.0
    }

    /// Runs the hostile clients (`lines` over `connections`, plus `idle` idle ones and one silent one) beside
    /// `clients` legitimate ones that create and advance orders, recording what was acknowledged.
    static func run(
        daemon: PizzadProcess, lines: Int, connections: Int, idle idleCount: Int, clients: Int,
        acknowledged: Locked<[Int64: String]>, requests: Locked<Int>
    ) async throws -> Summary {
        var summary = Summary(connections: connections, idle: idleCount)
        let socket = daemon.socket
        // Idle connections: a third half-open, a third with half a line, a third silent.
        var idle: [RawConnection] = []
        for index in 0..<idleCount {
            let connection = try RawConnection(path: socket)
            if index % 3 == 0 { shutdown(connection.fd, Int32(SHUT_WR)) }
            if index % 3 == 1 { try connection.send(#"{"jsonrpc":"2.0","id":1,"meth"#) }
            idle.append(connection)
        }
        let silent = try RawConnection(path: socket)
        let stop = Locked(false)
        let served = Locked(0)
        // Legitimate clients, until the hostile ones are done.
        let legitimate = Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        _ = try? await ControlClient.withConnection(socket: socket, timeout: .seconds(30)) {
                            connection in
                            var index = 0
                            while !stop.value {
                                let created = try await connection.call(
                                    OrderOperation.create.rawValue,
                                    [
                                        ("ref", .string("hostile-\(client)-\(index)")), ("items", [["kind": "cheese"]]),
                                        ("place", true),
                                    ])
                                index += 1
                                guard let id = created["id"]?.intValue else { continue }
                                acknowledged.withLock { $0[id] = "placed" }
                                let advanced = try await connection.call(
                                    OrderOperation.advance.rawValue, [("id", .int(id))])
                                if let status = advanced["status"]?.stringValue {
                                    acknowledged.withLock { $0[id] = status }
                                }
                                served.withLock { $0 += 2 }
                            }
                        }
                    }
                }
            }
        }
        // The silent client: requests until the daemon stops reading from it.
        summary.silentClientHeldBack = blast(silent)
        // Hostile connections on plain threads (blocking sockets stay off the cooperative pool). Each sends its
        // lines a hundred at a time, then a request of its own whose answer shows the connection still works.
        // Rounded up, so that fewer lines than connections still sends some (it sent none).
        let perConnection = (lines + connections - 1) / connections
        let survived = Locked(0)
        let sent = Locked(0)
        DispatchQueue.concurrentPerform(iterations: connections) { client in
            var random = SystemRandomNumberGenerator()
            guard let connection = try? RawConnection(path: socket, receiveTimeout: 60) else { return }
            var index = 0
            while index < perConnection {
                for _ in 0..<min(100, perConnection - index) {
                    guard
                        (try? connection.send(HostileLines.line(client * perConnection + index, using: &random))) != nil
                    else { return }
                    index += 1
                }
                let sync = "sync-\(client)-\(index)"
                guard (try? connection.send(#"{"jsonrpc":"2.0","id":"\#(sync)","method":"menu.list"}"# + "\n")) != nil
                else { return }
                while let line = try? connection.readLine() {
                    if line.contains(#""id":"\#(sync)""#) { break }
                }
            }
            sent.withLock { $0 += index }
            survived.withLock { $0 += 1 }
        }
        stop.withLock { $0 = true }
        await legitimate.value
        summary.lines = sent.value
        summary.survived = survived.value
        summary.served = served.value
        summary.peakRSSMiB = ProcessMemory.peakMiB(of: daemon.pid)
        requests.withLock { $0 += summary.lines + summary.served }
        withExtendedLifetime((idle, silent)) {}
        return summary
    }

    /// Sends requests without reading any answer; true once the daemon stops taking them (it stopped reading).
    private static func blast(_ connection: RawConnection) -> Bool {
        let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"menu.list"}"#.utf8) + [UInt8(ascii: "\n")]
        _ = fcntl(connection.fd, F_SETFL, fcntl(connection.fd, F_GETFL) | O_NONBLOCK)
        var blocked = 0
        for _ in 0..<200_000 {
            let written = request.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 { continue }
            blocked += 1
            if blocked >= 100 { return true }
            usleep(5_000)
        }
        return false
    }
}
