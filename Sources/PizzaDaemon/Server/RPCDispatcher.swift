import Foundation
import Logging
import PizzaCore
import PizzaProtocol
import PizzaReplication
import PizzaStorage
import SQLite

/// Runs control-socket methods (CONTRACT section 4), checking each caller's role first.
final class RPCDispatcher: Sendable {
    typealias Handler = @Sendable (Params, Peer) async throws -> JSONValue
    typealias ImmediateHandler = @Sendable (Params, Peer) throws -> JSONValue

    /// How a method runs.
    enum Run {
        /// At once, on the connection's event loop: reads that are one short SQLite query or less.
        case immediate(ImmediateHandler)
        /// In a task on the connection's event loop: changes, which only wait for their group commit.
        case change(Handler)
        /// In a task on the global executor: long scans, which must not hold up the connection's event loop.
        case task(Handler)
    }

    /// What became of a request: answered at once, or to be run in a task.
    enum Dispatch {
        /// An unknown method, a refusal, or a method that runs immediately.
        case answered(Result<JSONValue, RPCError>)
        /// To run in a task; `onLoop` when it only waits (a change), so the task may run on the connection's loop.
        case later(onLoop: Bool, run: @Sendable () async -> Result<JSONValue, RPCError>)
    }

    struct Method {
        let role: Role
        let run: Run
    }

    private let state: DaemonState
    private let methods: [String: Method]

    init(state: DaemonState) {
        self.state = state
        self.methods = Self.table(state)
    }

    /// Looks `request` up and checks `role` once: answers it at once when it can (an unknown method, a refusal,
    /// a read), or says how to run it.
    func dispatch(_ request: RPCRequest, peer: Peer, role: Role) -> Dispatch {
        switch method(for: request, peer: peer, role: role) {
        case .failure(let error): return .answered(.failure(error))
        case .success(let method):
            switch method.run {
            case .immediate(let handler): return .answered(run(request) { try handler(request.params, peer) })
            case .change(let handler): return .later(onLoop: true, run: later(request, peer, handler))
            case .task(let handler): return .later(onLoop: false, run: later(request, peer, handler))
            }
        }
    }

    private func later(_ request: RPCRequest, _ peer: Peer, _ handler: @escaping Handler)
        -> @Sendable () async -> Result<JSONValue, RPCError>
    {
        { [state] in
            do {
                return .success(try await handler(request.params, peer))
            } catch {
                return .failure(Self.rpcError(error, logger: state.logger, method: request.method))
            }
        }
    }

    private func method(for request: RPCRequest, peer: Peer, role: Role) -> Result<Method, RPCError> {
        guard let method = methods[request.method] else {
            let known = methods.keys.sorted().joined(separator: ", ")
            return .failure(RPCError(.methodNotFound, "unknown method '\(request.method)'; methods: \(known)"))
        }
        guard role >= method.role else {
            return .failure(
                RPCError(
                    .permissionDenied,
                    "\(request.method) needs the \(method.role) role; user \(peer.userName) (uid \(peer.uid)) is "
                        + (role == .none ? "in neither access.operators nor access.readers" : "only a \(role)"),
                    data: ["needed": .string(method.role.description), "user": .string(peer.userName)]))
        }
        return .success(method)
    }

    private func run(_ request: RPCRequest, _ body: () throws -> JSONValue) -> Result<JSONValue, RPCError> {
        do {
            return .success(try body())
        } catch {
            return .failure(Self.rpcError(error, logger: state.logger, method: request.method))
        }
    }

    static func rpcError(_ error: any Error, logger: Logger, method: String) -> RPCError {
        switch error {
        case let error as RPCError: return error
        case let error as OrderError: return RPCError(error)
        case let error as PizzaError: return RPCError(error)
        case let error as StorageError: return RPCError(.storage, "\(error)")
        case let error as SQLiteError where error.isStorageFailure:
            return RPCError(.storage, "\(StorageError.unavailable(error))")
        case let error as SQLiteError where error.code == .constraint:
            return RPCError(.validation, "the database refused the change: \(error.message)")
        default:
            logger.error("\(method) failed unexpectedly: \(error)")
            return RPCError(.internalError, "internal error: \(error)")
        }
    }

    // MARK: The methods

    private static func table(_ state: DaemonState) -> [String: Method] {
        let repository = state.repository
        let store = state.store
        var table: [String: Method] = [:]
        func add(_ name: String, _ role: Role, _ handler: @escaping Handler) {
            table[name] = Method(role: role, run: .task(handler))
        }
        func addChange(_ name: String, _ role: Role, _ handler: @escaping Handler) {
            table[name] = Method(role: role, run: .change(handler))
        }
        func addImmediate(_ name: String, _ role: Role, _ handler: @escaping ImmediateHandler) {
            table[name] = Method(role: role, run: .immediate(handler))
        }

        addImmediate("daemon.hello", .none) { params, _ in
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
        addImmediate("daemon.status", .reader) { params, _ in
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
                "delegates": .int(Int64(repository.delegates.count)),
                "connections": .int(Int64(state.connections.load(ordering: .relaxed))),
                "watchers": .int(Int64(state.watchers.load(ordering: .relaxed))),
                "metrics": state.metricsAddress.value.map { .string("http://\($0)/metrics") } ?? .null,
                "replication": state.replicator.map { $0.status().wire } ?? .null,
            ]
        }
        addImmediate("menu.list", .reader) { params, _ in
            try params.onlyKnown([])
            return state.menu.wire
        }
        addChange("order.create", .operator) { params, peer in
            try params.onlyKnown(["customer", "ref", "note", "items", "place"])
            let factory = state.factory
            let items = try params.array("items") ?? []
            guard items.count <= 100 else {
                throw RPCError.validation("items", "at most 100 items per order", allowed: ["0..100 items"])
            }
            var pizzas: [Pizza] = []
            for (index, item) in items.enumerated() {
                pizzas.append(try factory.pizza(fromWire: item, path: "items[\(index)]."))
            }
            let ref = try params.string("ref")  // checked by the repository (Cart.checkRef)
            let customer = try params.string("customer")
            let note = try params.string("note")
            for (field, value) in [("customer", customer), ("note", note)] where (value?.count ?? 0) > 1000 {
                throw RPCError.validation(
                    field, "\(field) is longer than 1000 characters", allowed: ["0..1000 characters"])
            }
            let result = try await repository.create(
                customer: customer, ref: ref, note: note, pizzas: pizzas, place: try params.bool("place") ?? false,
                currency: factory.menu.currency, by: peer.actor)
            return result.cart.wire
        }
        addChange("order.addItem", .operator) { params, peer in
            try params.onlyKnown(["id", "pizza"])
            let id = try params.requiredInt("id")
            guard let pizzaJSON = params["pizza"] else {
                throw RPCError.invalidParams("pizza", "pizza is required", expected: "object")
            }
            let pizza = try state.factory.pizza(fromWire: pizzaJSON, path: "pizza.")
            return try await repository.addItem(pizza, to: id, by: peer.actor).wire
        }
        addChange("order.removeItem", .operator) { params, peer in
            try params.onlyKnown(["id", "item"])
            return try await repository.removeItem(
                try params.requiredInt("item"), from: try params.requiredInt("id"), by: peer.actor
            ).wire
        }
        addChange("order.place", .operator) { params, peer in
            try params.onlyKnown(["id"])
            return try await repository.place(try params.requiredInt("id"), by: peer.actor).wire
        }
        addChange("order.advance", .operator) { params, peer in
            try params.onlyKnown(["id", "from"])
            return try await repository.advance(
                try params.requiredInt("id"), from: try params.status("from"), by: peer.actor
            ).wire
        }
        addChange("order.cancel", .operator) { params, peer in
            try params.onlyKnown(["id", "reason"])
            let id = try params.requiredInt("id")
            let reason = try params.requiredString("reason").trimmingCharacters(in: .whitespaces)
            guard !reason.isEmpty, reason.count <= 1000 else {
                throw RPCError.validation(
                    "reason", "a cancellation needs a reason (1 to 1000 characters)", allowed: ["1..1000 characters"])
            }
            return try await repository.cancel(id, reason: reason, by: peer.actor).wire
        }
        addImmediate("order.get", .reader) { params, _ in
            try params.onlyKnown(["id", "ref"])
            if let id = try params.int("id") { return try repository.cart(id: id).wire }
            if let ref = try params.string("ref") { return try repository.cart(ref: ref).wire }
            throw RPCError.invalidParams("id", "order.get needs id or ref", expected: "integer id or string ref")
        }
        addImmediate("order.list", .reader) { params, _ in
            try params.onlyKnown(["status", "since", "limit", "after"])
            let limit = try params.int("limit") ?? 50  // checked by the repository (OrderQuery.checkedLimit)
            let page = try repository.list(
                OrderQuery(
                    status: try params.status("status"), since: try params.timestamp("since"), limit: Int(limit),
                    after: try params.int("after")))
            return ["orders": .array(page.orders.map(\.wire)), "next": .int(page.next)]
        }
        addImmediate("audit.list", .reader) { params, _ in
            try params.onlyKnown(["after", "limit", "order"])
            let limit = try OrderQuery.checkedLimit(try params.int("limit") ?? 100)
            let entries = try store.auditEntries(
                after: try params.int("after") ?? 0, limit: Int(limit), order: try params.int("order"))
            return [
                "entries": .array(entries.map(\.wire)),
                "next": entries.count == Int(limit) ? .int(entries.last?.seq) : .null,
            ]
        }
        add("audit.verify", .reader) { params, _ in
            try params.onlyKnown([])
            let result = try store.verifyAudit()
            return [
                "ok": .bool(result.ok), "entries": .int(Int64(result.entries)), "firstBad": .int(result.firstBad),
                "problem": .string(result.problem),
            ]
        }
        addImmediate("metrics.get", .reader) { params, _ in
            try params.onlyKnown([])
            return ["text": .string(state.renderMetrics())]
        }
        add("db.check", .reader) { params, _ in
            try params.onlyKnown([])
            let result = try store.check()
            return ["ok": .bool(result.ok), "messages": .array(result.messages.map(JSONValue.string))]
        }
        add("db.backup", .operator) { params, _ in
            try params.onlyKnown(["path"])
            let path = try params.requiredString("path")
            guard path.hasPrefix("/") else {
                throw RPCError.validation(
                    "path", "the backup path must be absolute (the daemon's working directory is not yours)",
                    allowed: ["an absolute path"])
            }
            guard !FileManager.default.fileExists(atPath: path) else {
                throw RPCError.validation(
                    "path", "\(path) exists; pizzad never overwrites a file", allowed: ["a path that does not exist"])
            }
            if let refusal = BackupLocation.refusal(for: path) {
                throw RPCError.validation("path", refusal.reason, allowed: [refusal.allowed])
            }
            let bytes = try await store.backup(to: path)
            state.logger.info("backup written", metadata: ["path": "\(path)", "bytes": "\(bytes)"])
            return ["path": .string(path), "bytes": .int(bytes)]
        }
        addImmediate("replication.status", .reader) { params, _ in
            try params.onlyKnown([])
            return state.replicator.map { $0.status().wire } ?? ["enabled": false]
        }
        add("replication.verify", .reader) { params, _ in
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
        addImmediate("events.watch", .reader) { params, _ in
            // The connection handler turns the connection into a watcher after this acknowledgement.
            try params.onlyKnown(["status", "after"])
            _ = try params.status("status")
            _ = try params.int("after")
            return ["watching": true]
        }
        return table
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

extension AuditEntry {
    /// A stored order in the one wire form `order.get` answers (entries written before 0.2 nest each item's pizza
    /// and lack `total`; they read the same); text that is no order is sent as it parses, or null.
    private static func order(_ text: String) -> JSONValue {
        guard let parsed = try? JSONParser.parse(text) else { return .null }
        return (try? Cart(wire: parsed).wire) ?? parsed
    }

    /// The entry as `audit.list` sends it.
    var wire: JSONValue {
        .object([
            ("seq", .int(seq)), ("at", .string(at)), ("actor", actor.wire), ("action", .string(action)),
            ("order", .int(orderID)), ("status", .string(statusAfter)), ("reason", .string(reason)),
            ("before", before.map(Self.order) ?? .null),
            ("after", Self.order(after)),
            ("hash", .string(hash)),
        ])
    }
}
