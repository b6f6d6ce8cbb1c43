import Prometheus

/// The shipper's metrics, in the daemon's registry: what `GET /metrics` shows under `pizzad_replication_`.
struct ReplicationMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let batches: Counter
    private let events: Counter
    private let backlog: Gauge
    private let lag: Gauge
    private let connected: Gauge
    private let shipped: Gauge

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        batches = registry.makeCounter(
            descriptor: .init(
                metricName: "pizzad_replication_batches", unitName: "total",
                helpText: "Batches the central PostgreSQL committed."))
        events = registry.makeCounter(
            descriptor: .init(
                metricName: "pizzad_replication_events", unitName: "total",
                helpText: "Audit entries shipped to the central PostgreSQL."))
        backlog = registry.makeGauge(
            descriptor: .init(
                metricName: "pizzad_replication_backlog_events", unitName: "",
                helpText: "Audit entries not yet shipped."))
        lag = registry.makeGauge(
            descriptor: .init(
                metricName: "pizzad_replication_lag", unitName: "seconds",
                helpText: "Age of the oldest audit entry not yet shipped; 0 when none waits."))
        connected = registry.makeGauge(
            descriptor: .init(
                metricName: "pizzad_replication_connected", unitName: "",
                helpText: "1 while connected to the central PostgreSQL."))
        shipped = registry.makeGauge(
            descriptor: .init(
                metricName: "pizzad_replication_shipped_sequence", unitName: "",
                helpText: "The last audit sequence number the central PostgreSQL committed."))
    }

    func shippedBatch(events count: Int) {
        batches.increment()
        events.increment(by: Int64(count))
    }

    func failed(_ error: ReplicationError) {
        registry.makeCounter(
            descriptor: .init(
                metricName: "pizzad_replication_errors", unitName: "total",
                helpText: "Shipping errors by kind (reason: unreachable, authentication, diverged, ...)."),
            labels: [("reason", error.name)]
        ).increment()
    }

    func update(_ status: ReplicationStatus) {
        backlog.set(status.backlogEvents)
        lag.set(status.backlogSeconds)
        connected.set(Int64(status.connected ? 1 : 0))
        shipped.set(status.shippedSeq)
    }
}
