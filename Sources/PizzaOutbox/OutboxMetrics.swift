import CoreMetrics
import PizzaCore

/// The outbox's metrics, made through swift-metrics: `pizzad_outbox_*` per destination and `pizzad_printer_status`
/// per printer and status (1 for the status it is in), which the shipped alert rules watch.
struct OutboxMetrics: Sendable {
    private let waiting: [String: Gauge]
    private let lag: [String: Gauge]
    private let disabled: [String: Gauge]
    private let delivered: [String: Gauge]
    private let failed: [String: Gauge]
    private let printerStatus: [String: [EscPos.Status: Gauge]]

    /// What each metric means, for the `# HELP` lines.
    static let help: [String: String] = [
        "pizzad_outbox_waiting_messages": "Changes waiting to be sent to a printer or webhook.",
        "pizzad_outbox_lag_seconds": "Age of the oldest change waiting for a printer or webhook; 0 when none waits.",
        "pizzad_outbox_disabled": "1 when a printer or webhook failed past its limit and is no longer tried.",
        "pizzad_outbox_delivered_messages": "Messages delivered since start.",
        "pizzad_outbox_failed_attempts": "Attempts that failed since start.",
        "pizzad_printer_status": "1 for the status a kitchen printer last answered (unreachable when it did not).",
    ]

    init(factory: any MetricsFactory, names: [(name: String, kind: DestinationKind)]) {
        func gauges(_ metric: String) -> [String: Gauge] {
            Dictionary(
                uniqueKeysWithValues: names.map { entry in
                    (
                        entry.name,
                        Gauge(
                            label: metric, dimensions: [("destination", entry.name), ("kind", entry.kind.rawValue)],
                            factory: factory)
                    )
                })
        }
        waiting = gauges("pizzad_outbox_waiting_messages")
        lag = gauges("pizzad_outbox_lag_seconds")
        disabled = gauges("pizzad_outbox_disabled")
        delivered = gauges("pizzad_outbox_delivered_messages")
        failed = gauges("pizzad_outbox_failed_attempts")
        var printerStatus: [String: [EscPos.Status: Gauge]] = [:]
        for entry in names where entry.kind == .printer {
            var byStatus: [EscPos.Status: Gauge] = [:]
            for status in EscPos.Status.allCases {
                byStatus[status] = Gauge(
                    label: "pizzad_printer_status", dimensions: [("printer", entry.name), ("status", status.rawValue)],
                    factory: factory)
            }
            printerStatus[entry.name] = byStatus
        }
        self.printerStatus = printerStatus
    }

    func update(_ statuses: [OutboxStatus], now: Timestamp) {
        for status in statuses {
            waiting[status.name]?.record(status.waiting)
            let age = status.oldestWaitingAt.map { max(0, now.millisecondsSince1970 - $0.millisecondsSince1970) } ?? 0
            lag[status.name]?.record(Double(age) / 1000)
            disabled[status.name]?.record(status.state == .disabled ? 1 : 0)
            delivered[status.name]?.record(status.delivered)
            failed[status.name]?.record(status.failed)
            if let gauges = printerStatus[status.name] {
                for (value, gauge) in gauges { gauge.record(status.printer == value ? 1 : 0) }
            }
        }
    }
}
