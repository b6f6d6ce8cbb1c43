import Foundation
import Logging
import PizzaCore
import PizzaProtocol
import PizzaReplication
import PizzaStorage
import PizzaWire
import SQLite

/// Runs control-socket methods (CONTRACT section 4), checking each caller's role first.
final class RPCDispatcher: Sendable {
    typealias Handler = @Sendable (Params, Peer) async throws -> JSONValue
    typealias ImmediateHandler = @Sendable (Params, Peer) throws -> JSONValue
    /// Checks a change's parameters and says which change it asks for; the repository runs it.
    typealias ChangeHandler = @Sendable (Params) throws -> ChangeRequest
    /// Calls back once with a long scan's answer (``Dispatch/later(_:)``), from the task that ran it.
    typealias Answer = @Sendable (Result<JSONValue, RPCError>) -> Void
    typealias SubscriptionHandler = @Sendable (Params, Peer) throws -> Subscription

    /// What a stream method (`events.watch`) asked for, checked: the connection streams it after the acknowledgement.
    struct Subscription: Sendable {
        /// Only changes into or out of this status.
        var status: OrderStatus?
        /// Replay from the audit log after this sequence number first.
        var after: Int64?
    }

    /// How a method runs.
    enum Run {
        /// At once, on the connection's event loop: reads that are one short SQLite query or less.
        case immediate(ImmediateHandler)
        /// Submitted to the repository from the connection's event loop: changes, which only wait for their group
        /// commit, and are answered from the writer's callback without a task.
        case change(ChangeHandler)
        /// In a task on the global executor: long scans, which must not hold up the connection's event loop.
        case task(Handler)
        /// At once: checks the parameters, then the connection becomes a stream (``Subscription``).
        case subscribe(SubscriptionHandler)
    }

    /// What became of a request: answered at once, to submit, or to be run in a task.
    enum Dispatch {
        /// An unknown method, a refusal, or a method that runs immediately.
        case answered(Result<JSONValue, RPCError>)
        /// A change, to be submitted with ``RPCDispatcher/submit(_:completion:)``.
        case submit(Submission)
        /// To run in a task on the global executor.
        case later(@Sendable () async -> Result<JSONValue, RPCError>)
        /// A stream to start: acknowledge with `{"watching": true}`, then stream.
        case subscribe(Subscription)
    }

    /// A checked change and who asks for it, for ``submit(_:completion:)``. An enum, so that submitting takes the
    /// change and the actor out of it (`switch consume`), where reading a struct's members copied the change: some
    /// ten retains and as many releases an order of its strings and arrays.
    enum Submission: Sendable {
        case change(ChangeRequest, by: ChangeActor)
    }

    struct Method {
        let role: Role
        let run: Run
    }

    private let state: DaemonState
    private let methods: [String: Method]
    /// The role `order.create` needs, looked up once: a till's every order is checked against it.
    private let createRole: Role?

    init(state: DaemonState) {
        self.state = state
        self.methods = Self.table(state)
        self.createRole = methods[OrderOperation.create.rawValue]?.role
    }

    /// Looks `request` up and checks `role` once: answers it at once when it can (an unknown method, a refusal,
    /// a read), or says how to run it.
    func dispatch(_ request: RPCRequest, peer: Peer, role: Role) -> Dispatch {
        switch method(for: request, peer: peer, role: role) {
        case .failure(let error): return .answered(.failure(error))
        case .success(let method):
            switch method.run {
            case .immediate(let handler): return .answered(run(request) { try handler(request.params, peer) })
            case .change(let handler):
                do {
                    return .submit(.change(try handler(request.params), by: peer.actor))
                } catch {
                    return .answered(.failure(Self.rpcError(error, logger: state.logger, method: request.method)))
                }
            case .task(let handler): return .later(later(request, peer, handler))
            case .subscribe(let handler):
                do {
                    return .subscribe(try handler(request.params, peer))
                } catch {
                    return .answered(.failure(Self.rpcError(error, logger: state.logger, method: request.method)))
                }
            }
        }
    }

    /// `order.create` read by ``OrderCreateLine`` (its change already read from the line): checked against the
    /// caller's role as ``dispatch(_:peer:role:)`` checks it, then to submit.
    func dispatch(_ change: consuming ChangeRequest, for request: RPCRequest, peer: Peer, role: Role) -> Dispatch {
        // Allowed: no lookup by the method's name. Refused: the general check, which words the refusal.
        if let createRole, role >= createRole, request.method == OrderOperation.create.rawValue {
            return .submit(.change(change, by: peer.actor))
        }
        return switch method(for: request, peer: peer, role: role) {
        case .failure(let error): .answered(.failure(error))
        case .success: .submit(.change(change, by: peer.actor))
        }
    }

    /// Submits a change to the repository. `completion` gets its outcome once: from the writer's thread after the
    /// commit, or at once from the calling thread for a change refused before it was queued. What the caller
    /// answers is ``answer(_:method:)`` of it, made on the caller's own thread rather than the writer's.
    func submit(
        _ submission: consuming Submission, completion: @escaping @Sendable (Result<OrderOutcome, any Error>) -> Void
    ) {
        switch consume submission {
        case .change(let change, let actor): state.repository.submit(change, by: actor, completion: completion)
        }
    }

    /// A change's answer: the order as its commit left it, or the error as the protocol names it.
    func answer(_ result: Result<OrderOutcome, any Error>, method: String) -> Result<JSONValue, RPCError> {
        switch result {
        case .success(let outcome): .success(outcome.wire)
        case .failure(let error): .failure(Self.rpcError(error, logger: state.logger, method: method))
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
        // The domain's and storage's errors each say their kind once (``DomainFailure``).
        case let error as any DomainFailure where error.kind != .internal: return RPCError(error)
        default:
            logger.error("\(method) failed unexpectedly: \(error)")
            return RPCError(.internalError, "internal error: \(error)")
        }
    }

    // MARK: The methods

    /// Every method, each area's from its own file in `Methods/`.
    private static func table(_ state: DaemonState) -> [String: Method] {
        var table = MethodTable()
        addDaemonMethods(to: &table, state)
        addOrderMethods(to: &table, state)
        addAuditMethods(to: &table, state)
        addDatabaseMethods(to: &table, state)
        addBoardMethods(to: &table, state)
        addReplicationMethods(to: &table, state)
        addDeviceMethods(to: &table, state)
        addOutboxMethods(to: &table, state)
        addShopMethods(to: &table, state)
        return table.methods
    }

    /// The methods by name, as each area adds them.
    struct MethodTable {
        private(set) var methods: [String: Method] = [:]

        /// A method that runs in a task on the global executor (a long scan).
        mutating func add(_ method: RPCMethod, _ role: Role, _ handler: @escaping Handler) {
            methods[method.rawValue] = Method(role: role, run: .task(handler))
        }

        /// A change: its parameters are checked on the connection's event loop, then the repository runs it.
        mutating func addChange(_ name: String, _ role: Role, _ handler: @escaping ChangeHandler) {
            methods[name] = Method(role: role, run: .change(handler))
        }

        /// An order change, under its operation's one spelling.
        mutating func addChange(_ operation: OrderOperation, _ role: Role, _ handler: @escaping ChangeHandler) {
            addChange(operation.rawValue, role, handler)
        }

        /// An order read, under its operation's one spelling.
        mutating func addImmediate(_ operation: OrderOperation, _ role: Role, _ handler: @escaping ImmediateHandler) {
            methods[operation.rawValue] = Method(role: role, run: .immediate(handler))
        }

        /// A read answered at once on the connection's event loop.
        mutating func addImmediate(_ method: RPCMethod, _ role: Role, _ handler: @escaping ImmediateHandler) {
            methods[method.rawValue] = Method(role: role, run: .immediate(handler))
        }

        /// A stream: its parameters are checked at once, then the connection streams.
        mutating func addSubscription(_ method: RPCMethod, _ role: Role, _ handler: @escaping SubscriptionHandler) {
            methods[method.rawValue] = Method(role: role, run: .subscribe(handler))
        }
    }
}
