import CoreMetrics
public import PizzaCore
public import Prometheus

/// Counts what the repository commits, through swift-metrics into a Prometheus registry.
///
/// A repository subscriber on the after-commit phase: it never slows or fails a change. Every metric it exports
/// is in ``help`` (and the metrics table in docs/OPERATIONS.md): orders created, transitions, orders per status, the time each
/// order spends in each stage, cancellations, failed changes by error, and the writer's group commits.
public final class MetricsCollector: OrderRepositoryDelegate {
    /// The registry the metrics live in; ``render()`` writes it out.
    public let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory over `registry`, for other parts of the daemon to add their own metrics.
    public let factory: PrometheusMetricsFactory
    private let created: CoreMetrics.Counter
    private let transitions: [OrderStatus: CoreMetrics.Counter]
    private let inStatus: [OrderStatus: CoreMetrics.Meter]
    private let commitLatency: CoreMetrics.Timer
    private let failures: Locked<[FailureKey: Prometheus.Counter]>
    private let stageDurations: [OrderStatus: DurationHistogram]
    private let fulfilment: DurationHistogram
    private let cancelled: [OrderStatus: Prometheus.Counter]
    private let batchSize: ValueHistogram
    private let batchDuration: DurationHistogram
    private let counts: Locked<[OrderStatus: Int]>

    private struct FailureKey: Hashable {
        var operation: OrderOperation
        var error: String
    }

    /// The statuses an order waits in before the kitchen moves it on: what the stage histograms are labelled by.
    public static let stages: [OrderStatus] = OrderStatus.active

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
            let meter = CoreMetrics.Meter(
                label: "pizzad_orders", dimensions: [("status", status.rawValue)], factory: factory)
            meter.set(counts[status] ?? 0)
            inStatus[status] = meter
        }
        self.transitions = transitions
        self.inStatus = inStatus
        commitLatency = CoreMetrics.Timer(label: "pizzad_commit_duration_seconds", factory: factory)
        failures = Locked([:])
        // Kitchen times are minutes, not milliseconds: buckets from a second to four hours.
        let stageBuckets: [Duration] = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 7200, 14400]
            .map { .seconds($0) }
        let stage = MetricNameDescriptor(
            metricName: "pizzad_order_stage_duration", unitName: "seconds",
            helpText: "Time an order spent in a status before it moved on to the next one (not counting cancellations)."
        )
        var stageDurations: [OrderStatus: DurationHistogram] = [:]
        for status in Self.stages {
            stageDurations[status] = registry.makeDurationHistogram(
                descriptor: stage, labels: [("status", status.rawValue)], buckets: stageBuckets)
        }
        self.stageDurations = stageDurations
        fulfilment = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                metricName: "pizzad_order_fulfilment_duration", unitName: "seconds",
                helpText: "Time from an order being placed to its delivery."),
            buckets: [300, 600, 900, 1200, 1500, 1800, 2400, 3000, 3600, 5400, 7200, 14400].map { .seconds($0) })
        let cancelledName = MetricNameDescriptor(
            metricName: "pizzad_orders_cancelled", unitName: "total",
            helpText: "Orders cancelled since the daemon started, by the status they were cancelled from.")
        var cancelled: [OrderStatus: Prometheus.Counter] = [:]
        for status in OrderStatus.allCases where (try? status.applying(.cancel).get()) != nil {
            cancelled[status] = registry.makeCounter(descriptor: cancelledName, labels: [("from", status.rawValue)])
        }
        self.cancelled = cancelled
        batchSize = registry.makeValueHistogram(
            descriptor: MetricNameDescriptor(
                metricName: "pizzad_group_commit", unitName: "changes",
                helpText: "Changes written by one group commit (one SQLite transaction)."),
            buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256])
        batchDuration = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                metricName: "pizzad_group_commit_duration", unitName: "seconds",
                helpText: "Time one group commit took, from BEGIN to a durable COMMIT (fsync included)."),
            buckets: [
                .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                .milliseconds(100), .milliseconds(250), .seconds(1),
            ])
        // Storage failures exist from the start, so rate() and the alert on them see a zero rather than no series;
        // the other errors appear when they first happen.
        for operation in OrderOperation.changes {
            failure(operation: operation, error: "storage").increment(by: Int64(0))
        }
    }

    /// Records one group commit of the writer: how many changes it wrote and how long it took.
    public func groupCommitted(changes: Int, duration: Duration) {
        batchSize.record(Double(changes))
        batchDuration.record(duration)
    }

    private func failure(operation: OrderOperation, error: String) -> Prometheus.Counter {
        let key = FailureKey(operation: operation, error: error)
        return failures.withLock { failures in
            if let counter = failures[key] { return counter }
            let counter = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    metricName: "pizzad_changes_failed", unitName: "total",
                    helpText: "Changes refused or not stored, by operation and error name (as the socket names it)."),
                labels: [("operation", key.operation.rawValue), ("error", key.error)])
            failures[key] = counter
            return counter
        }
    }

    public func repository(didCommit change: OrderChange, latency: Duration) {
        commitLatency.recordNanoseconds(latency.nanoseconds)
        if change.kind == .created { created.increment() }
        let before = change.before?.status
        let after = change.after.status
        if let before = change.before, before.status != after {
            recordStage(left: before, by: change)
        }
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

    /// The stage histograms: how long `before` had been in its status, and for a delivery, since it was placed.
    private func recordStage(left before: Cart, by change: OrderChange) {
        if change.after.status == .cancelled {
            cancelled[before.status]?.increment()
            return
        }
        func since(_ time: Timestamp) -> Duration {
            .milliseconds(max(0, change.at.millisecondsSince1970 - time.millisecondsSince1970))
        }
        if let entered = before.history.last?.at { stageDurations[before.status]?.record(since(entered)) }
        if change.after.status == .delivered, let placed = before.history.last(where: { $0.to == .placed })?.at {
            fulfilment.record(since(placed))
        }
    }

    public func repository(didFail operation: OrderOperation, error: any Error) {
        failure(operation: operation, error: Self.errorName(error)).increment()
    }

    /// The name the control socket gives `error` (`not_found`, `validation`, …; `storage` for the rest).
    static func errorName(_ error: any Error) -> String {
        switch error {
        case let error as OrderError:
            switch error {
            case .notFound, .itemNotFound: "not_found"
            case .invalidTransition, .notOpen, .emptyCart: "invalid_transition"
            case .conflict: "conflict"
            case .validation: "validation"
            }
        case is PizzaError: "validation"
        default: "storage"
        }
    }

    /// What each metric means, written as `# HELP` lines (swift-metrics has no place for help text).
    public static let help: [String: String] = [
        "pizzad_orders_created_total": "Orders created since the daemon started.",
        "pizzad_order_transitions_total": "Status changes since the daemon started, by the status entered.",
        "pizzad_orders": "Orders now in each status.",
        "pizzad_commit_duration_seconds": "Time from a change's request to its durable commit.",
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
