import Foundation
import Histogram
import PizzaTesting

/// The soak: the mixed kitchen load (creates with refs, places, advances, reads, lists, one `events.watch`
/// subscriber) on one pizzad for `minutes` minutes, with a line a minute of what would show a leak or a drift:
/// orders/s, p99, resident memory, the WAL's size and open descriptors. `pizzabench --only soak --minutes N`.
enum Soak {
    struct Minute {
        var ordersPerSecond: Double
        var requestsPerSecond: Double
        var p99: UInt64
        var createP99: UInt64
        var rssMiB: Double
        var walMiB: Double
        var descriptors: Int
        var events: Int
    }

    static func run(binary: String, directory: String, minutes: Int, clients: Int) async throws -> Bool {
        let daemon = try PizzadProcess.bench(binary: binary, directory: directory)
        defer { _ = try? daemon.stop() }
        print("soak: \(minutes) minutes of the kitchen load, \(clients) clients with refs + 1 events.watch subscriber")
        let header = [
            "minute", "orders/s", "requests/s", "p99", "create p99", "RSS MiB", "WAL MiB", "open fds", "events",
        ]
        var minutesRun: [Minute] = []
        for minute in 1...minutes {
            let (result, byKind, events) = try await Load.kitchen(daemon: daemon, clients: clients, seconds: 60)
            let creates = Double(byKind["create"]?.totalCount ?? 0)
            let measured = Minute(
                ordersPerSecond: creates / result.seconds, requestsPerSecond: result.perSecond,
                p99: result.latency.valueAtPercentile(99), createP99: byKind["create"]?.valueAtPercentile(99) ?? 0,
                rssMiB: residentMiB(of: daemon.pid), walMiB: fileMiB(daemon.database + "-wal"),
                descriptors: openDescriptors(of: daemon.pid), events: events)
            minutesRun.append(measured)
            // A row as each minute ends, so that a long soak shows its progress.
            Bench.table(header, [row(minute, measured)], header: minute == 1)
        }
        guard let first = minutesRun.first, let last = minutesRun.last else { return true }
        // Flat: no growth beyond the first minute's (a tenth's room for the machine's noise in memory, two
        // descriptors for connections closing), and no p99 drift beyond half again the first minute's.
        let peakRSS = minutesRun.map(\.rssMiB).max() ?? 0
        let flat =
            peakRSS <= first.rssMiB * 1.1 && last.descriptors <= first.descriptors + 2
            && minutesRun.map(\.walMiB).max() ?? 0 <= max(first.walMiB * 1.5, 8)
            && Double(last.p99) <= Double(first.p99) * 1.5
        print(
            "soak: RSS \(Bench.format(first.rssMiB, 1)) → \(Bench.format(last.rssMiB, 1)) MiB (peak "
                + "\(Bench.format(peakRSS, 1))), open fds \(first.descriptors) → \(last.descriptors), p99 "
                + "\(Bench.latency(first.p99)) → \(Bench.latency(last.p99)), orders/s "
                + "\(Bench.format(first.ordersPerSecond, 0)) → \(Bench.format(last.ordersPerSecond, 0)): "
                + (flat ? "flat" : "NOT FLAT"))
        return flat
    }

    private static func row(_ minute: Int, _ measured: Minute) -> [String] {
        [
            "\(minute)", Bench.format(measured.ordersPerSecond, 0), Bench.format(measured.requestsPerSecond, 0),
            Bench.latency(measured.p99), Bench.latency(measured.createP99), Bench.format(measured.rssMiB, 1),
            Bench.format(measured.walMiB, 1), "\(measured.descriptors)", "\(measured.events)",
        ]
    }

    /// Resident memory now (`VmRSS`), not the peak.
    static func residentMiB(of pid: Int32) -> Double { Bench.statusMiB(of: pid, "VmRSS") }

    static func fileMiB(_ path: String) -> Double {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return Double(bytes) / 1_048_576
    }

    static func openDescriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }
}
