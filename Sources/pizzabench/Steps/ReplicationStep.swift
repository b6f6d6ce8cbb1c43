import Foundation
import PizzaTesting

/// Shipping to a central PostgreSQL: the shop's cost and the lag, with replication on and off, back to back.
enum ReplicationStep {
    static func run(_ run: BenchRun, seconds: Double) async throws {
        if let reason = PostgresServer.unavailableReason {
            print("replication: skipped, \(reason)\n")
        } else {
            let clients = 16
            let (runs, shipping, paced) = try await ReplicationBench.run(
                pizzad: run.pizzad, work: run.work, clients: clients, seconds: seconds)
            print(
                "replication to a central PostgreSQL on this machine (synchronous_commit=on), order.create from \(clients) clients,"
            )
            print(
                "back to back; each shipping run is compared with the mean of the off runs beside it. \"centre niced\": the"
            )
            print(
                "PostgreSQL server at nice 19, so it takes only idle CPU, as a centre on another machine would take none:"
            )
            let pacedName = "\(Bench.format(paced.perSecond, 0))/s"
            let pacedRuns: [(name: String, run: ReplicationBench.Run, ratio: Double?)] = [
                ("off at " + pacedName, paced.offBefore, nil), ("on at " + pacedName, paced.on, nil),
                ("off at " + pacedName, paced.offAfter, nil),
            ]
            Bench.table(
                ["run", "orders/s", "p50", "p99", "daemon CPU µs/order", "× replication off"],
                (runs + pacedRuns).map { name, run, ratio in
                    let result = run.result
                    return [
                        name, Bench.format(result.perSecond, 0), us(result.latency.valueAtPercentile(50)),
                        us(result.latency.valueAtPercentile(99)),
                        Bench.format(result.daemonCPUMicrosPerOperation, 0),
                        ratio.map { Bench.format($0, 2) } ?? "",
                    ]
                })
            print("")
            Bench.table(
                [
                    "run", "entries shipped", "batches", "shipped/s", "backlog at load end", "caught up after",
                    "lag p50",
                    "lag p99", "lag max",
                ],
                shipping.map { run in
                    [
                        run.name, "\(run.on.events)", "\(run.on.batches)", Bench.format(run.shippedPerSecond, 0),
                        "\(run.on.backlogAtEnd)",
                        Bench.format(run.on.drainSeconds, 2) + " s", Bench.format(run.lagP50, 2) + " ms",
                        Bench.format(run.lagP99, 2) + " ms",
                        Bench.format(run.lagMax, 2) + " ms",
                    ]
                })
            print(
                "(lag: the entry's commit time in the shop to its insert at the centre; shipped/s: entries over load plus catch-up time)"
            )
            // What a shop pays for shipping is its own CPU per order, and how late the centre hears: the order rate
            // with the centre on the same two cores is shown, not targeted. The CPU is
            // compared at one pace (the same run.work); flat out it is shown too.
            for run in shipping {
                print(
                    "replication \(run.name), flat out: pizzad's own CPU per order on/off \(Bench.format(1 / run.cpuRatio, 2))×, "
                        + "lag p99 \(Bench.format(run.lagP99, 0)) ms (target < 250: "
                        + "\(run.lagP99 < 250 ? "held" : "NOT held")); order rate on/off \(Bench.format(run.ratio, 2)) "
                        + "(the centre on the same cores; the rate target the paced CPU cost replaced, ≥ 0.90: "
                        + "\(run.ratio >= 0.9 ? "met" : "NOT met"))")
            }
            print(
                "replication at \(pacedName) (the same run.work on and off): pizzad's own CPU per order on/off "
                    + "\(Bench.format(paced.cpuCost, 2))× (target ≤ 1.10: \(paced.cpuCost <= 1.1 ? "held" : "NOT held")), "
                    + "lag p99 \(Bench.format(paced.lagP99, 0)) ms (target < 250: \(paced.lagP99 < 250 ? "held" : "NOT held"))"
            )
            print("")
        }
    }
}
