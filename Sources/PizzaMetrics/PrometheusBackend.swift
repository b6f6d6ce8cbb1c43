public import CoreMetrics
import PizzaCore
import Prometheus

/// The one place that chooses Prometheus: a registry, the swift-metrics factory over it, and the `# HELP` text of
/// each metric. Everything else in the daemon makes its metrics through swift-metrics' own types (`Counter`,
/// `Gauge`, `Meter`, `Timer`, `Recorder`) on ``factory``, and says what they mean with ``describe(_:)``; `GET
/// /metrics` serves ``render()``.
///
/// The factory is passed, not bootstrapped globally (`MetricsSystem.bootstrap`), so that two daemons in one process
/// (the in-process tests, pizzabench's chain of shops) keep their metrics apart.
public final class PrometheusBackend: Sendable {
    private let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory every metric of the daemon is made with.
    public let factory: any MetricsFactory
    private let help: Locked<[String: String]>

    /// A backend whose histograms (swift-metrics' timers and aggregating recorders) have the `buckets` named by
    /// their label, and the default duration buckets (250 µs to 1 s, for commit latencies) otherwise.
    public init(
        durationBuckets: [String: [Duration]] = MetricsCollector.durationBuckets,
        valueBuckets: [String: [Double]] = MetricsCollector.valueBuckets
    ) {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1),
        ]
        factory.durationHistogramBuckets = durationBuckets
        factory.valueHistogramBuckets = valueBuckets
        self.factory = factory
        help = Locked(MetricsCollector.help)
    }

    /// Registers the `# HELP` text of metrics, by name (as exported: `pizzad_wal_frames`).
    public func describe(_ texts: [String: String]) { help.withLock { $0.merge(texts) { $1 } } }

    /// The Prometheus text exposition of every metric, each with its `# HELP` line where one was described.
    public func render() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        let help = help.withLock { $0 }
        var output = ""
        output.reserveCapacity(buffer.count + 4096)
        for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst(7).split(separator: " ").first,
                let text = help[String(name)]
            {
                output += "# HELP \(name) \(text)\n"
            }
            output += line
            output += "\n"
        }
        return String(output.dropLast())
    }
}
