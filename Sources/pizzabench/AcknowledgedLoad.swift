import Foundation
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire

/// `order.create` (with a ref, two pizzas, placed) on `clients` connections until stopped or until pizzad goes
/// away, keeping every acknowledged order's id and when its answer arrived.
final class AcknowledgedLoad: @unchecked Sendable {
    struct Result {
        var count: Int
        var seconds: Double
        var acknowledged: [(id: Int64, at: UInt64)]
    }

    let socket: String
    let clients: Int
    private let stopping = Locked(false)
    private let collected = Locked<[(id: Int64, at: UInt64)]>([])
    private let finished = DispatchSemaphore(value: 0)
    private var started: UInt64 = 0

    init(socket: String, clients: Int) {
        self.socket = socket
        self.clients = clients
    }

    func start() {
        started = Bench.now()
        let run = "l\(UInt32.random(in: 0...UInt32.max))"
        for client in 0..<clients {
            let thread = Thread { [self] in
                var acknowledged: [(id: Int64, at: UInt64)] = []
                if let connection = try? RawConnection(path: socket, receiveTimeout: 30) {
                    var ticket = 0
                    while !stopping.value {
                        ticket += 1
                        let line = RPCRequest(
                            id: .int(Int64(ticket)), method: OrderOperation.create.rawValue,
                            params: Params([
                                ("ref", .string("\(run)c\(client)-\(ticket)")), ("customer", "bench"),
                                ("items", Load.twoPizzas), ("place", true),
                            ])
                        ).line
                        guard (try? connection.send(line + "\n")) != nil, let answer = try? connection.readLine(),
                            let id = Self.orderID(answer)
                        else { break }
                        acknowledged.append((id, Bench.now()))
                    }
                }
                collected.withLock { $0 += acknowledged }
                finished.signal()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    func stop() { stopping.withLock { $0 = true } }

    /// Waits for every client to end (stopped, or its connection gone).
    func wait() -> Result {
        for _ in 0..<clients { finished.wait() }
        let acknowledged = collected.value
        let last = acknowledged.map(\.at).max() ?? Bench.now()
        return Result(count: acknowledged.count, seconds: Double(last - started) / 1e9, acknowledged: acknowledged)
    }

    private static func orderID(_ answer: String) -> Int64? {
        guard let range = answer.range(of: #""result":{"id":"#) else { return nil }
        return Int64(answer[range.upperBound...].prefix { $0.isNumber })
    }
}
