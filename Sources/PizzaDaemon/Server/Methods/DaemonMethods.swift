import Foundation
import PizzaCore
import PizzaProtocol
import PizzaReplication
import PizzaStorage
import PizzaWire

extension RPCDispatcher {
    /// `daemon.*`, `menu.list`, `metrics.get` and `events.watch`: the daemon itself.
    static func addDaemonMethods(to table: inout MethodTable, _ state: DaemonState) {
        let repository = state.repository
        let store = state.store
        table.addImmediate(.hello, .none) { params, _ in
            try params.onlyKnown(["client", "protocol"])
            let version = try params.string("protocol") ?? ProtocolVersion.current
            guard let major = ProtocolVersion.major(of: version) else {
                throw RPCError.validation(
                    "protocol", "'\(version)' is not a protocol version", allowed: ["MAJOR.MINOR"])
            }
            guard major == ProtocolVersion.major else {
                throw RPCError(
                    .unsupportedVersion,
                    "protocol \(version) is not supported; this pizzad speaks \(ProtocolVersion.current)",
                    data: ["supported": .string(ProtocolVersion.current)])
            }
            return try HelloAnswer(
                version: DaemonState.version, protocolVersion: ProtocolVersion.current, pid: Int64(getpid())
            ).json
        }
        table.addImmediate(.status, .reader) { params, _ in
            try params.onlyKnown([])
            let info = try store.info()
            let counts = try repository.countsByStatus()
            let failure = store.currentStorageFailure
            return try StatusAnswer(
                version: DaemonState.version, pid: Int64(getpid()), uptime: (state.uptime * 1000).rounded() / 1000,
                storage: failure.map { "failing: \($0)" } ?? "ok",
                database: StatusAnswer.Database(
                    path: info.path, bytes: info.bytes, schemaVersion: Int64(info.schemaVersion),
                    journalMode: info.journalMode, synchronous: info.synchronous, sqliteVersion: info.sqliteVersion),
                orders: Members(OrderStatus.allCases.map { ($0.rawValue, Int64(counts[$0] ?? 0)) }),
                delegates: Int64(repository.writers.count + repository.delegates.count),
                connections: Int64(state.connections.load(ordering: .relaxed)),
                watchers: Int64(state.watchers.load(ordering: .relaxed)),
                metrics: state.metricsAddress.value.map { "http://\($0)/metrics" },
                replication: state.replicator.map { $0.status().answer }
            ).json
        }
        table.addImmediate(.menu, .reader) { params, _ in
            try params.onlyKnown([])
            return try MenuAnswer(state.menu, unavailable: state.repository.availability.unavailable).json
        }
        table.addImmediate(.metrics, .reader) { params, _ in
            try params.onlyKnown([])
            return try MetricsAnswer(text: state.renderMetrics()).json
        }
        table.addSubscription(.watch, .reader) { params, _ in
            try params.onlyKnown(["status", "after"])
            return Subscription(status: try params.status("status"), after: try params.int("after"))
        }
    }
}
