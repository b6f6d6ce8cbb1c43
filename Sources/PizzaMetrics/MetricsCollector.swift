import CoreMetrics
public import PizzaCore
public import Prometheus

/// Counts what the repository commits, through swift-metrics into a Prometheus registry.
///
/// A repository subscriber on the after-commit phase: it never slows or fails a change. It exports
/// `pizzad_orders_created_total`, `pizzad_order_transitions_total{to}`, `pizzad_orders{status}` (orders now in
/// each status), `pizzad_commit_duration_seconds` (histogram) and `pizzad_changes_failed_total{operation}`.
public final class MetricsCollector: OrderRepositoryDelegate {
    /// The registry the metrics live in; ``render()`` writes it out.
    public let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory over `registry`, for other parts of the daemon to add their own metrics.
    public let factory: PrometheusMetricsFactory
    private let created: CoreMetrics.Counter
    private let transitions: [OrderStatus: CoreMetrics.Counter]
    private let inStatus: [OrderStatus: CoreMetrics.Meter]
    private let commitLatency: CoreMetrics.Timer
    private let failures: CoreMetrics.Counter
    private let failuresByOperation: [String: CoreMetrics.Counter]
    private let counts: Locked<[OrderStatus: Int]>

    /// A collector starting from the current `counts` of orders in each status.
    public init(counts: [OrderStatus: Int], registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.counts = Locked(counts)
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1),
        ]
        self.factory = factory
        created = CoreMetrics.Counter(label: "pizzad_orders_created_total", factory: factory)
        var transitions: [OrderStatus: CoreMetrics.Counter] = [:]
        var inStatus: [OrderStatus: CoreMetrics.Meter] = [:]
        for status in OrderStatus.allCases {
            transitions[status] = CoreMetrics.Counter(
                label: "pizzad_order_transitions_total", dimensions: [("to", status.rawValue)], factory: factory)
            let meter = CoreMetrics.Meter(label: "pizzad_orders", dimensions: [("status", status.rawValue)], factory: factory)
            meter.set(counts[status] ?? 0)
            inStatus[status] = meter
        }
        self.transitions = transitions
        self.inStatus = inStatus
        commitLatency = CoreMetrics.Timer(label: "pizzad_commit_duration_seconds", factory: factory)
        failures = CoreMetrics.Counter(
            label: "pizzad_changes_failed_total", dimensions: [("operation", "other")], factory: factory)
        var byOperation: [String: CoreMetrics.Counter] = [:]
        for operation in [
            "order.create", "order.addItem", "order.removeItem", "order.place", "order.advance", "order.cancel",
        ] {
            byOperation[operation] = CoreMetrics.Counter(
                label: "pizzad_changes_failed_total", dimensions: [("operation", operation)], factory: factory)
        }
        failuresByOperation = byOperation
    }

    public func repository(didCommit change: OrderChange, latency: Duration) {
        commitLatency.recordNanoseconds(latency.nanoseconds)
        if change.kind == .created { created.increment() }
        let before = change.before?.status
        let after = change.after.status
        if before != after {
            transitions[after]?.increment()
            if let before { inStatus[before]?.decrement() }
            inStatus[after]?.increment()
            counts.withLock { counts in
                if let before { counts[before, default: 0] -= 1 }
                counts[after, default: 0] += 1
            }
        }
    }

    /// Orders now in each status, as `pizzad_orders` shows them: counted from the database at start-up and kept
    /// up to date from every commit since, so reading them costs no query (the systemd STATUS line reads them
    /// every few seconds). Changes made to the file behind pizzad's back are not in them.
    public var ordersByStatus: [OrderStatus: Int] { counts.withLock { $0 } }

    public func repository(didFail operation: String, error: any Error) {
        (failuresByOperation[operation] ?? failures).increment()
    }

    /// What each metric means, written as `# HELP` lines (swift-metrics has no place for help text).
    public static let help: [String: String] = [
        "pizzad_orders_created_total": "Orders created since the daemon started.",
        "pizzad_order_transitions_total": "Status changes since the daemon started, by the status entered.",
        "pizzad_orders": "Orders now in each status.",
        "pizzad_commit_duration_seconds": "Time from a change's request to its durable commit.",
        "pizzad_changes_failed_total": "Changes refused or not stored, by operation.",
    ]

    /// Help text for metrics other parts of the daemon add to the registry.
    private let extraHelp = Locked<[String: String]>([:])

    /// Registers the `# HELP` text of a metric added through ``factory``.
    public func describe(_ name: String, _ text: String) { extraHelp.withLock { $0[name] = text } }

    /// The Prometheus text exposition of every metric in the registry, with `# HELP` lines.
    public func render() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        let help = Self.help.merging(extraHelp.withLock { $0 }) { $1 }
        var output = ""
        output.reserveCapacity(buffer.count + 1024)
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

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product + attoseconds / 1_000_000_000
    }
}
