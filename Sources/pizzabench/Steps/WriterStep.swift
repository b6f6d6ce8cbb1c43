import Foundation
import SQLite

/// The storage path alone, in this process.
enum WriterStep {
    static func run(_ run: BenchRun) async throws {
        print(
            "the storage path in this process, no socket (16 tasks creating two-pizza placed orders through the repository,"
        )
        print("persistence and audit on a real SQLite file; 3 rounds each, taking turns; CPU: the whole process):")
        var runs: [WriterBench.Run] = []
        for _ in 0..<3 {
            for synchronous in [ConnectionSettings.Synchronous.off, .full] {
                runs.append(
                    try await WriterBench.measure(
                        synchronous: synchronous, orders: synchronous == .off ? 60_000 : 30_000, folder: run.work,
                        migrations: Steps.migrations))
            }
        }
        Bench.table(
            ["synchronous", "orders/s", "CPU µs/order"],
            runs.map { [$0.synchronous.rawValue, Bench.format($0.perSecond, 0), Bench.format($0.cpuPerOrder, 1)] })
        print("")
    }
}
