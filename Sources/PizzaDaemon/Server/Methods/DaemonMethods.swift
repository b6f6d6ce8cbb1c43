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
            return [
                "version": .string(DaemonState.version), "protocol": .string(ProtocolVersion.current),
                "pid": .int(Int64(getpid())),
            ]
        }
        table.addImmediate(.status, .reader) { params, _ in
            try params.onlyKnown([])
            let info = try store.info()
            let counts = try repository.countsByStatus()
            let failure = store.currentStorageFailure
            return [
                "version": .string(DaemonState.version),
                "pid": .int(Int64(getpid())),
                "uptime": .double((state.uptime * 1000).rounded() / 1000),
                "storage": failure.map { .string("failing: \($0)") } ?? "ok",
                "database": [
                    "path": .string(info.path), "bytes": .int(info.bytes),
                    "schemaVersion": .int(Int64(info.schemaVersion)),
                    "journalMode": .string(info.journalMode), "synchronous": .string(info.synchronous),
                    "sqliteVersion": .string(info.sqliteVersion),
                ],
                "orders": .object(OrderStatus.allCases.map { ($0.rawValue, .int(Int64(counts[$0] ?? 0))) }),
                "delegates": .int(Int64(repository.writers.count + repository.delegates.count)),
                "connections": .int(Int64(state.connections.load(ordering: .relaxed))),
                "watchers": .int(Int64(state.watchers.load(ordering: .relaxed))),
                "metrics": state.metricsAddress.value.map { .string("http://\($0)/metrics") } ?? .null,
                "replication": state.replicator.map { $0.status().wire } ?? .null,
            ]
        }
        table.addImmediate(.menu, .reader) { params, _ in
            try params.onlyKnown([])
            return state.menu.wire
        }
        table.addImmediate(.metrics, .reader) { params, _ in
            try params.onlyKnown([])
            return ["text": .string(state.renderMetrics())]
        }
        table.addSubscription(.watch, .reader) { params, _ in
            try params.onlyKnown(["status", "after"])
            return Subscription(status: try params.status("status"), after: try params.int("after"))
        }
    }
}
