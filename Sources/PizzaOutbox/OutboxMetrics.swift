import PizzaCore
import Prometheus

/// The outbox's metrics, in the daemon's registry: `pizzad_outbox_*` per destination and `pizzad_printer_status` per
/// printer and status (1 for the status it is in), which the shipped alert rules watch.
struct OutboxMetrics: Sendable {
    private let waiting: [String: Gauge]
    private let lag: [String: Gauge]
    private let disabled: [String: Gauge]
    private let delivered: [String: Gauge]
    private let failed: [String: Gauge]
    private let printerStatus: [String: [EscPos.Status: Gauge]]

    init(registry: PrometheusCollectorRegistry, names: [(name: String, kind: String)]) {
        func gauges(_ metric: String, _ help: String) -> [String: Gauge] {
            Dictionary(
                uniqueKeysWithValues: names.map { entry in
                    (
                        entry.name,
                        registry.makeGauge(
                            descriptor: .init(metricName: metric, helpText: help),
                            labels: [("destination", entry.name), ("kind", entry.kind)])
                    )
                })
        }
        waiting = gauges("pizzad_outbox_waiting_messages", "Changes waiting to be sent to a printer or webhook.")
        lag = gauges(
            "pizzad_outbox_lag_seconds", "Age of the oldest change waiting for a printer or webhook; 0 when none waits."
        )
        disabled = gauges(
            "pizzad_outbox_disabled", "1 when a printer or webhook failed past its limit and is no longer tried.")
        delivered = gauges("pizzad_outbox_delivered_messages", "Messages delivered since start.")
        failed = gauges("pizzad_outbox_failed_attempts", "Attempts that failed since start.")
        var printerStatus: [String: [EscPos.Status: Gauge]] = [:]
        for entry in names where entry.kind == "printer" {
            var byStatus: [EscPos.Status: Gauge] = [:]
            for status in EscPos.Status.allCases {
                byStatus[status] = registry.makeGauge(
                    descriptor: .init(
                        metricName: "pizzad_printer_status",
                        helpText: "1 for the status a kitchen printer last answered (unreachable when it did not)."),
                    labels: [("printer", entry.name), ("status", status.rawValue)])
            }
            printerStatus[entry.name] = byStatus
        }
        self.printerStatus = printerStatus
    }

    func update(_ statuses: [OutboxStatus], now: Timestamp) {
        for status in statuses {
            waiting[status.name]?.set(status.waiting)
            let age = status.oldestWaitingAt.map { max(0, now.millisecondsSince1970 - $0.millisecondsSince1970) } ?? 0
            lag[status.name]?.set(to: Double(age) / 1000)
            disabled[status.name]?.set(Int64(status.state == .disabled ? 1 : 0))
            delivered[status.name]?.set(status.delivered)
            failed[status.name]?.set(status.failed)
            if let gauges = printerStatus[status.name] {
                for (value, gauge) in gauges { gauge.set(Int64(status.printer == value ? 1 : 0)) }
            }
        }
    }
}
