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
            return try ReplicationStatusAnswer(state.replicator?.status().answer.shipping).json
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
                return try ReplicationVerifyAnswer(
                    ok: result.ok, shop: replicator.configuration.shopID, shippedSeq: result.shippedSeq,
                    centralSeq: result.centralSeq, centralHash: result.centralHash, localHash: result.localHash,
                    centralEvents: result.centralEvents, centralOrders: result.centralOrders, problem: result.problem
                ).json
            } catch let error as ReplicationError {
                throw RPCError(.storage, "\(error)", data: ["kind": .string(error.name)])
            }
        }
    }
}

extension ReplicationStatus {
    /// The status as `replication.status` and `daemon.status` send it.
    var answer: ReplicationStatusAnswer {
        ReplicationStatusAnswer(
            .init(
                shop: shopID, peer: peer, state: state.rawValue, connected: connected, lastError: lastError,
                lastErrorKind: lastErrorKind, lastErrorAt: lastErrorAt?.description, shippedSeq: shippedSeq,
                latestSeq: latestSeq, backlogEvents: backlogEvents,
                backlogSeconds: (backlogSeconds * 1000).rounded() / 1000, batches: batches, events: events,
                errors: errors))
    }
}
