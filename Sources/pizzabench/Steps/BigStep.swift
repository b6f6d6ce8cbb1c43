import Foundation
import PizzaCore
import PizzaTesting
import PizzaWire

/// A big database: start-up and reads.
enum BigStep {
    static func run(_ run: BenchRun, orders: Int) async throws -> Double {
        var peakRSS = 0.0
        let directory = try run.folder("big")
        let first = try PizzadProcess.bench(binary: run.pizzad, directory: directory)
        _ = try? first.stop()
        let filling = Bench.now()
        try BigDatabase.fill(directory + "/pizzad.sqlite", orders: orders)
        print("database with \(orders) orders written in \(Bench.format(Double(Bench.now() - filling) / 1e9, 1)) s")
        var readies: [UInt64] = []
        var daemon: PizzadProcess?
        for _ in 0..<3 {
            _ = try? daemon?.stop()
            daemon = try PizzadProcess.bench(binary: run.pizzad, directory: directory)
            readies.append(daemon!.readyAfter ?? 0)
        }
        let big = daemon!
        let getRequest: (Int) -> (String, [(String, JSONValue)]) = { index in
            (OrderOperation.get.rawValue, [("id", .int(Int64(1 + (index * 7919) % orders)))])
        }
        let get = try Load.blockingLatency(daemon: big, count: 2000, getRequest)
        let getThroughClient = try await Load.latency(daemon: big, count: 2000, getRequest)
        let list = try await Load.latency(daemon: big, count: 500) { index in
            (
                OrderOperation.list.rawValue,
                [("status", .string(["placed", "baking", "delivered", "cancelled"][index % 4])), ("limit", 50)]
            )
        }
        peakRSS = max(peakRSS, Bench.peakRSS(of: big.pid))
        _ = try? big.stop()
        Bench.table(
            ["with \(orders) orders", "p50", "p99", "max"],
            [
                ["start to READY=1 (3 starts)", us(readies.sorted()[1]), "-", us(readies.max()!)],
                [
                    OrderOperation.get.rawValue, us(get.valueAtPercentile(50)), us(get.valueAtPercentile(99)),
                    us(get.max),
                ],
                [
                    "order.get through PizzaClient", us(getThroughClient.valueAtPercentile(50)),
                    us(getThroughClient.valueAtPercentile(99)), us(getThroughClient.max),
                ],
                [
                    "order.list --status (50)", us(list.valueAtPercentile(50)), us(list.valueAtPercentile(99)),
                    us(list.max),
                ],
            ])
        print(
            "order.get: one client on a blocking socket, like the order.create load; through PizzaClient: pizzactl's NIO"
        )
        print("client, whose own thread hops (task, event loop, promise) are in the figure")
        print("")
        return peakRSS
    }
}
