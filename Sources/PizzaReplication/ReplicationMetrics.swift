import CoreMetrics

/// The shipper's metrics, made through swift-metrics: what `GET /metrics` shows under `pizzad_replication_`.
struct ReplicationMetrics: Sendable {
    private let factory: any MetricsFactory
    private let batches: Counter
    private let events: Counter
    private let backlog: Gauge
    private let lag: Gauge
    private let connected: Gauge
    private let shipped: Gauge

    /// What each metric means, for the `# HELP` lines.
    static let help: [String: String] = [
        "pizzad_replication_batches_total": "Batches the central PostgreSQL committed.",
        "pizzad_replication_events_total": "Audit entries shipped to the central PostgreSQL.",
        "pizzad_replication_backlog_events": "Audit entries not yet shipped.",
        "pizzad_replication_lag_seconds": "Age of the oldest audit entry not yet shipped; 0 when none waits.",
        "pizzad_replication_connected": "1 while connected to the central PostgreSQL.",
        "pizzad_replication_shipped_sequence": "The last audit sequence number the central PostgreSQL committed.",
        "pizzad_replication_errors_total":
            "Shipping errors by kind (reason: unreachable, authentication, diverged, ...).",
    ]

    init(factory: any MetricsFactory) {
        self.factory = factory
        batches = Counter(label: "pizzad_replication_batches_total", factory: factory)
        events = Counter(label: "pizzad_replication_events_total", factory: factory)
        backlog = Gauge(label: "pizzad_replication_backlog_events", factory: factory)
        lag = Gauge(label: "pizzad_replication_lag_seconds", factory: factory)
        connected = Gauge(label: "pizzad_replication_connected", factory: factory)
        shipped = Gauge(label: "pizzad_replication_shipped_sequence", factory: factory)
    }

    func shippedBatch(events count: Int) {
        batches.increment()
        events.increment(by: count)
    }

    func failed(_ error: ReplicationError) {
        Counter(label: "pizzad_replication_errors_total", dimensions: [("reason", error.name)], factory: factory)
            .increment()
    }

    func update(_ status: ReplicationStatus) {
        backlog.record(status.backlogEvents)
        lag.record(status.backlogSeconds)
        connected.record(status.connected ? 1 : 0)
        shipped.record(status.shippedSeq)
    }
}
