import CoreMetrics
import Foundation
import PizzaCore
import PizzaMetrics
import PizzaProtocol
import PizzaStorage
import PizzaWire
import SQLite

/// The daemon's metrics beside the repository's: connections, watchers, overload refusals, storage state, the
/// database's and WAL's size, the age of the oldest order in each active status and build information.
///
/// What describes the present (connections, storage, sizes, ages) is read when the metrics are rendered, so a
/// scrape shows the moment it was taken; nothing is polled in between and nothing scans the orders (the ages are
/// one index seek per status). The standard process metrics are ``ProcessMetrics``, on the same backend.
final class DaemonMetrics: Sendable {
    /// Why a connection or request was answered `overloaded` (the `reason` label).
    enum OverloadReason: String, CaseIterable {
        /// More control connections than `socket.maxConnections`.
        case connections
        /// Too many requests waiting on one control connection.
        case queue
        /// More HTTP connections than the metrics endpoint takes.
        case metricsConnections = "metrics_connections"
        /// More HTTP connections than the board's listener takes.
        case boardConnections = "board_connections"
    }

    /// The storage states `pizzad_storage_state` reports, one of them 1 at a time.
    enum StorageState: String, CaseIterable {
        case ok, full
        case readOnly = "read_only"
        case failing
    }

    private let backend: PrometheusBackend
    private let store: SQLiteOrderStore
    private let connections: Gauge
    private let watchers: Gauge
    private let overloads: [OverloadReason: Counter]
    private let storageStates: [StorageState: Gauge]
    private let databaseBytes: Gauge
    private let walBytes: Gauge
    private let oldestAge: [OrderStatus: Gauge]
    private let process: ProcessMetrics

    /// What each of its metrics means, for the `# HELP` lines.
    static let help: [String: String] = [
        "pizzad_connections": "Control socket connections open now.",
        "pizzad_watchers": "Clients following events.watch now.",
        "pizzad_overload_refusals_total":
            "Connections or requests answered overloaded: reason is connections, queue, metrics_connections or "
            + "board_connections.",
        "pizzad_storage_state": "1 for the storage's state now (ok, full, read_only, failing), 0 for the others.",
        "pizzad_database_size_bytes": "Size of the SQLite database file.",
        "pizzad_wal_size_bytes": "Size of the SQLite write-ahead log file (-wal).",
        "pizzad_orders_oldest_age_seconds":
            "Age of the longest-waiting order in each active status: since it entered it "
            + "(open: since its last change); 0 when none.",
        "pizzad_board_warn_seconds":
            "After this long in a status an order's ticket turns yellow on the boards (board.<status>.warnSeconds).",
        "pizzad_board_late_seconds":
            "After this long in a status an order is late: red on the boards, and the alert rules fire.",
        "pizzad_build_info": "Always 1; the labels say which pizzad, SQLite and schema run.",
    ]

    init(backend: PrometheusBackend, store: SQLiteOrderStore, board: BoardSettings = BoardSettings()) {
        self.backend = backend
        self.store = store
        process = ProcessMetrics(backend: backend)
        backend.describe(Self.help)
        let factory = backend.factory
        connections = Gauge(label: "pizzad_connections", factory: factory)
        watchers = Gauge(label: "pizzad_watchers", factory: factory)
        overloads = Self.family(OverloadReason.allCases, label: "reason", \.rawValue) {
            Counter(label: "pizzad_overload_refusals_total", dimensions: $0, factory: factory)
        }
        storageStates = Self.family(StorageState.allCases, label: "state", \.rawValue) {
            Gauge(label: "pizzad_storage_state", dimensions: $0, factory: factory)
        }
        databaseBytes = Gauge(label: "pizzad_database_size_bytes", factory: factory)
        walBytes = Gauge(label: "pizzad_wal_size_bytes", factory: factory)
        oldestAge = Self.family(MetricsCollector.stages, label: "status", \.rawValue) {
            Gauge(label: "pizzad_orders_oldest_age_seconds", dimensions: $0, factory: factory)
        }
        // The board's marks, from the configuration: the alert rules compare the oldest ages with these, so the
        // boards and the pager cannot disagree.
        for (status, marks) in board.thresholds {
            Gauge(label: "pizzad_board_warn_seconds", dimensions: [("status", status.rawValue)], factory: factory)
                .record(marks.warn)
            Gauge(label: "pizzad_board_late_seconds", dimensions: [("status", status.rawValue)], factory: factory)
                .record(marks.late)
        }
        Gauge(
            label: "pizzad_build_info",
            dimensions: [
                ("version", PizzadVersion.current), ("sqlite_version", Database.libraryVersion),
                ("schema", String(store.schemaVersion)),
            ], factory: factory
        ).record(1)
    }

    /// One metric for each of `keys`, labelled `label` with the key's name.
    private static func family<Key: Hashable, Metric>(
        _ keys: [Key], label: String, _ value: (Key) -> String, make: ([(String, String)]) -> Metric
    ) -> [Key: Metric] {
        Dictionary(uniqueKeysWithValues: keys.map { ($0, make([(label, value($0))])) })
    }

    /// Counts one overload refusal.
    func overloaded(_ reason: OverloadReason) { overloads[reason]?.increment() }

    /// The storage state now, from the store's last failure.
    static func storageState(of store: SQLiteOrderStore) -> StorageState {
        switch store.currentStorageFailure {
        case nil: .ok
        case .readOnly?: .readOnly
        case .unavailable(let error)? where error.code == .full: .full
        case .unavailable(let error)? where error.code == .readonly: .readOnly
        default: .failing
        }
    }

    /// The Prometheus text exposition of every metric, as `GET /metrics` and `metrics.get` serve it.
    func render(connections open: Int, watchers watching: Int) -> String {
        connections.record(open)
        watchers.record(watching)
        let current = Self.storageState(of: store)
        for (state, gauge) in storageStates { gauge.record(state == current ? 1 : 0) }
        databaseBytes.record(Self.size(of: store.path))
        walBytes.record(Self.size(of: store.path + "-wal"))
        // When the database cannot be read, the ages keep their last values rather than dropping to 0, which
        // would hide an order that is still waiting.
        if let oldest = try? store.oldestChangeByActiveStatus() {
            let now = Timestamp.now().millisecondsSince1970
            for (status, gauge) in oldestAge {
                gauge.record(oldest[status].map { Double(max(0, now - $0.millisecondsSince1970)) / 1000 } ?? 0)
            }
        }
        process.update()
        return backend.render()
    }

    private static func size(of path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
