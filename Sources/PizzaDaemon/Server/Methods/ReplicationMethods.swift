import PizzaCore
import PizzaProtocol
import PizzaReplication
import PizzaStorage
import PizzaWire

extension RPCDispatcher {
    /// `replication.*`: shipping to the central PostgreSQL.
    static func addReplicationMethods(to table: inout MethodTable, _ state: DaemonState) {
        table.addImmediate(.replicationStatus, .reader) { params, _ in
            try params.onlyKnown([])
            return state.replicator.map { $0.status().wire } ?? ["enabled": false]
        }
        table.add(.replicationVerify, .reader) { params, _ in
            try params.onlyKnown([])
            guard let replicator = state.replicator else {
                throw RPCError(
                    .validation, "replication is off (set replication.postgres.host in the configuration)",
                    data: ["field": "replication.postgres.host"])
            }
            do {
                let result = try await replicator.verify()
                return [
                    "ok": .bool(result.ok), "shop": .string(replicator.configuration.shopID),
                    "shippedSeq": .int(result.shippedSeq), "centralSeq": .int(result.centralSeq),
                    "centralHash": .string(result.centralHash), "localHash": .string(result.localHash),
                    "centralEvents": .int(result.centralEvents), "centralOrders": .int(result.centralOrders),
                    "problem": .string(result.problem),
                ]
            } catch let error as ReplicationError {
                throw RPCError(.storage, "\(error)", data: ["kind": .string(error.name)])
            }
        }
    }
}

extension ReplicationStatus {
    /// The status as `replication.status` and `daemon.status` send it.
    var wire: JSONValue {
        [
            "enabled": true, "shop": .string(shopID), "peer": .string(peer), "state": .string(state.rawValue),
            "connected": .bool(connected), "lastError": .string(lastError), "lastErrorKind": .string(lastErrorKind),
            "lastErrorAt": .string(lastErrorAt?.description), "shippedSeq": .int(shippedSeq),
            "latestSeq": .int(latestSeq),
            "backlogEvents": .int(backlogEvents), "backlogSeconds": .double((backlogSeconds * 1000).rounded() / 1000),
            "batches": .int(batches), "events": .int(events), "errors": .int(errors),
        ]
    }
}
