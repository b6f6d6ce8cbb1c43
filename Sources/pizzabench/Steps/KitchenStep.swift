import Foundation
import PizzaTesting

/// The kitchen: a mixed load from 16 clients and one events.watch subscriber.
enum KitchenStep {
    static func run(_ run: BenchRun, seconds: Double) async throws -> Double {
        var peakRSS = 0.0
        let directory = try run.folder("kitchen")
        let daemon = try PizzadProcess.bench(binary: run.pizzad, directory: directory)
        let kitchen = try await Load.kitchen(daemon: daemon, clients: 16, seconds: seconds)
        _ = try? daemon.stop()
        peakRSS = max(peakRSS, kitchen.result.peakRSS)
        print("mixed kitchen load, 16 clients + 1 events.watch subscriber (\(kitchen.events) events received):")
        Bench.table(
            ["operation", "count", "p50", "p99", "p999"],
            ["create", "place", "advance", "get", "list"].map { kind in
                let histogram = kitchen.byKind[kind]!
                return [
                    kind, "\(histogram.totalCount)", us(histogram.valueAtPercentile(50)),
                    us(histogram.valueAtPercentile(99)),
                    us(histogram.valueAtPercentile(99.9)),
                ]
            } + [
                [
                    "all", "\(kitchen.result.operations)", us(kitchen.result.latency.valueAtPercentile(50)),
                    us(kitchen.result.latency.valueAtPercentile(99)),
                    us(kitchen.result.latency.valueAtPercentile(99.9)),
                ]
            ])
        print(
            "\(Bench.format(kitchen.result.perSecond, 0)) requests/s, daemon CPU \(Bench.format(kitchen.result.daemonCPU, 2)) s, "
                + "peak RSS \(Bench.format(kitchen.result.peakRSS, 1)) MiB\n")
        return peakRSS
    }
}
