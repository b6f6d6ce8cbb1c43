import Logging
import NIOCore
import NIOPosix
import PizzaAPI
import PizzaCore
import PizzaMetrics
import PizzaOutbox
import PizzaProtocol
import PizzaReplication
import PizzaStorage
import PizzaWire
import Synchronization

/// What every part of the running daemon shares: the repository and its subscribers, the menu and the access
/// lists (both replaced on `SIGHUP`), and a few counters.
final class DaemonState: Sendable {
    static let version = PizzadVersion.current

    /// The store, the repository and the storage subscribers, which it owns.
    let orders: OrderBook
    /// Where every metric goes: the one place Prometheus is chosen; the rest make theirs through swift-metrics.
    let metricsBackend = PrometheusBackend()
    /// The subscribers beside the storage's, owned here (the repository holds them weakly).
    let metrics: MetricsCollector
    /// The daemon's own metrics beside the collector's, and the exposition of both.
    let daemonMetrics: DaemonMetrics
    /// The shipper to the central PostgreSQL; nil when replication is off.
    let replicator: Replicator?
    /// The kitchen's printers and the webhooks; nil when none is configured.
    let outbox: Outbox?
    /// How the boards show tickets (`board.*`).
    let board: BoardSettings
    /// The order API's settings (`api.*`): its certificate's fingerprint is what `device.add` hands out.
    let apiSettings: APISettings
    /// Every change as a Server-Sent Event, encoded once for all readers: the board's pages and `/v1/events`.
    let events: EventFanOut
    /// The order API, once it serves; nil when it is off. `device.add` and `device.revoke` reload its devices.
    let api = Locked<OrderAPI?>(nil)
    let logger: Logger
    let startedAt = ContinuousClock.now
    let connections = Atomic<Int>(0)
    let watchers = Atomic<Int>(0)
    /// Where the HTTP metrics endpoint listens (`127.0.0.1:9464`), once it does; nil when it is off.
    let metricsAddress = Locked<String?>(nil)
    private let factoryState: Locked<PizzaFactory>
    private let accessState: Locked<AccessPolicy>
    /// The environment the daemon was started with (`STATE_DIRECTORY`, the centre's password).
    let environment: [String: String]
    /// Where the tasks started from an event loop run (``DaemonControl/taskExecutor``); nil: the global executor.
    let taskExecutor: (any TaskExecutor)?

    init(
        store: SQLiteOrderStore, configuration: DaemonConfiguration, daemonUID: UInt32, logger: Logger,
        centralMigrations: [Migration] = [], environment: [String: String] = [:],
        taskExecutor: (any TaskExecutor)? = nil, group: MultiThreadedEventLoopGroup = .singleton,
        shippingLoop: (any EventLoop)? = nil
    ) async throws {
        self.logger = logger
        events = EventFanOut(loop: group.any())
        self.environment = environment
        self.taskExecutor = taskExecutor
        orders = OrderBook(store: store)
        // The items taken off the menu, as the last run left them.
        try orders.loadAvailability()
        let repository = orders.repository
        metrics = MetricsCollector(counts: try repository.countsByStatus(), factory: metricsBackend.factory)
        repository.delegates += metrics
        let factory = metricsBackend.factory
        metricsBackend.describe(Replicator.metricsHelp.merging(Outbox.metricsHelp) { $1 })
        let replicator = try configuration.replication.map {
            try Replicator(
                configuration: $0, store: store, migrations: centralMigrations, metrics: factory,
                environment: environment, logger: logger,
                client: PostgresCentralClient(
                    configuration: $0, environment: environment, loop: shippingLoop, logger: logger))
        }
        self.replicator = replicator
        if let replicator { repository.delegates += replicator }
        repository.delegates += events
        let outbox =
            configuration.outbox.isEmpty
            ? nil
            : try Outbox(
                settings: configuration.outbox, store: store, showCustomer: configuration.board.showCustomer,
                metrics: factory, logger: logger)
        self.outbox = outbox
        if let outbox {
            try await outbox.prepare()
            repository.delegates += outbox
        }
        daemonMetrics = DaemonMetrics(backend: metricsBackend, store: store, board: configuration.board)
        board = configuration.board
        apiSettings = configuration.api
        store.observeGroupCommits { [metrics] changes, duration in
            metrics.groupCommitted(changes: changes, duration: duration)
        }
        factoryState = Locked(PizzaFactory(menu: configuration.menu))
        accessState = Locked(
            AccessPolicy(operators: configuration.operators, readers: configuration.readers, daemonUID: daemonUID))
    }

    var repository: OrderRepository<SQLiteOrderStore> { orders.repository }
    var store: SQLiteOrderStore { orders.store }

    var factory: PizzaFactory { factoryState.withLock { $0 } }
    var menu: Menu { factory.menu }
    /// What `peer` may do, read under the lock: every request asks, and a copy of the policy is its lists to retain.
    func role(of peer: Peer) -> Role { accessState.withLock { $0.role(of: peer) } }

    /// Applies what can change live: the menu and the access lists.
    func apply(_ configuration: DaemonConfiguration) {
        factoryState.withLock { factory in
            if factory.menu != configuration.menu { factory = PizzaFactory(menu: configuration.menu) }
        }
        accessState.withLock { access in
            access.operators = configuration.operators
            access.readers = configuration.readers
        }
    }

    /// The Prometheus text of every metric, as `GET /metrics` and `metrics.get` serve it.
    func renderMetrics() -> String {
        replicator?.refreshMetrics()
        outbox?.refreshMetrics()
        return daemonMetrics.render(
            connections: connections.load(ordering: .relaxed), watchers: watchers.load(ordering: .relaxed))
    }

    /// The printers' statuses as last seen, as the board shows them: `[{"name":"kitchen","status":"paper_out"}]`
    /// (`unknown` before a printer was asked).
    func printers() -> [BoardPrinter] {
        (outbox?.statuses() ?? []).filter { $0.kind == .printer }.map { status in
            BoardPrinter(name: status.name, status: status.printer?.rawValue ?? "unknown")
        }
    }

    /// ``printers()`` as JSON text, for the board page's event stream.
    func printersJSON() -> String { (try? JSONValueEncoder().encode(printers()).jsonText) ?? "[]" }

    /// Seconds since start.
    var uptime: Double {
        let elapsed = ContinuousClock.now - startedAt
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
