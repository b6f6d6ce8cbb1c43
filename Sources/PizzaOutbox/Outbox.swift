import AsyncHTTPClient
public import CoreMetrics
public import Logging
public import PizzaCore
public import PizzaStorage
public import ServiceLifecycle

/// What leaves the shop (CONTRACT section 16): kitchen tickets on ESC/POS printers and signed webhooks, each a
/// cursor over the audit log, which every change's transaction already writes. So nothing committed can be missed
/// and nothing is sent for a change that rolled back, and the kitchen's transaction pays nothing for it: a commit
/// only rings each destination's doorbell. ARCHITECTURE.md says why this and not a second table.
public final class Outbox: Service, OrderRepositoryDelegate, Sendable {
    /// The printers and webhooks it serves.
    public let settings: OutboxSettings
    private let store: SQLiteOrderStore
    private let deliverers: [Deliverer]
    private let printers: [String: PrinterDestination]
    private let clients: PinnedClients?
    private let metrics: OutboxMetrics
    private let logger: Logger

    /// The outbox for `settings`; `showCustomer` is whether tickets print the customer's name (`board.showCustomer`);
    /// its metrics are made by `metrics`.
    public init(
        settings: OutboxSettings, store: SQLiteOrderStore, showCustomer: Bool, metrics: any MetricsFactory,
        logger: Logger
    ) throws {
        self.settings = settings
        self.store = store
        self.logger = logger
        let shopKey = try store.replicationMark().shopKey
        var printers: [String: PrinterDestination] = [:]
        var destinations: [any Destination] = []
        for printer in settings.printers {
            let destination = PrinterDestination(
                settings: printer, showCustomer: showCustomer,
                limit: .seconds(settings.printerLimitMinutes * 60))
            printers[printer.name] = destination
            destinations.append(destination)
        }
        var clients: PinnedClients?
        if !settings.webhooks.isEmpty {
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(
                    connect: .seconds(Int64(min(5, settings.webhookTimeoutSeconds))),
                    read: .seconds(Int64(settings.webhookTimeoutSeconds))))
            configuration.connectionPool.idleTimeout = .seconds(30)
            let made = PinnedClients(configuration: configuration)
            clients = made
            let schedule = RetrySchedule(scale: settings.retryScale)
            for webhook in settings.webhooks {
                destinations.append(
                    WebhookDestination(
                        settings: webhook, clients: made, schedule: schedule,
                        timeout: .seconds(settings.webhookTimeoutSeconds), shopKey: shopKey))
            }
        }
        self.clients = clients
        self.printers = printers
        deliverers = destinations.map { Deliverer(destination: $0, store: store, logger: logger) }
        self.metrics = OutboxMetrics(factory: metrics, names: destinations.map { ($0.name, $0.kind) })
    }

    /// Reads (or makes) every destination's cursor; call before the daemon serves, so that a change committed after
    /// start is never behind a cursor made later.
    public func prepare() async throws {
        for deliverer in deliverers { try await deliverer.prepare() }
    }

    /// What each of its metrics means, for the `# HELP` lines.
    public static var metricsHelp: [String: String] { OutboxMetrics.help }

    // MARK: Subscriber

    /// Wakes every deliverer: there is a new entry to look at.
    public func repository(didCommit change: OrderChange, latency: Duration) {
        for deliverer in deliverers { deliverer.ring() }
    }

    /// Wakes every deliverer for an entry that belongs to no order too (a Z report prints; webhooks hear of it).
    public func repository(didCommit change: ShopChange) {
        for deliverer in deliverers { deliverer.ring() }
    }

    // MARK: Running

    /// Delivers until shutdown; then stops at once (what was not confirmed goes again at the next start).
    public func run() async throws {
        let deliverers = deliverers
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for deliverer in deliverers { group.addTask { await deliverer.run() } }
            }
        }
        await clients?.shutdown()
    }

    // MARK: Operating

    /// Every destination, as `pizzactl outbox` lists them.
    public func statuses() -> [OutboxStatus] {
        deliverers.map { deliverer in
            let progress = deliverer.progress
            let destination = deliverer.destination
            let cursor = progress.cursor
            let waiting =
                cursor.flatMap { cursor in
                    try? store.outboxWaiting(
                        after: cursor.deliveredSeq, created: destination.events.contains(.created),
                        statuses: destination.events.subtracting([.created] + OutboxEvent.changes).map(\.rawValue),
                        actions: destination.events.intersection(OutboxEvent.changes).map(\.rawValue))
                } ?? (count: 0, oldest: nil)
            let state: OutboxStatus.State
            if cursor?.disabledAt != nil {
                state = .disabled
            } else if cursor?.failingSince != nil {
                state = .failing
            } else if waiting.count > 0 || progress.busy {
                state = .sending
            } else {
                state = .idle
            }
            var target = ""
            if let printer = destination as? PrinterDestination { target = printer.settings.address }
            if let webhook = destination as? WebhookDestination { target = webhook.settings.url }
            return OutboxStatus(
                name: destination.name, kind: destination.kind, target: target, state: state,
                deliveredSeq: cursor?.deliveredSeq ?? 0, waiting: waiting.count, oldestWaitingAt: waiting.oldest,
                failingSince: cursor?.failingSince, lastError: cursor?.lastError, nextAttemptAt: progress.nextAttemptAt,
                disabledAt: cursor?.disabledAt, disabledReason: cursor?.disabledReason,
                printer: (destination as? PrinterDestination)?.status, delivered: progress.delivered,
                failed: progress.failed)
        }
    }

    /// Sets the gauges; called when the metrics are rendered.
    public func refreshMetrics() { metrics.update(statuses(), now: .now()) }

    /// `pizzactl outbox retry NAME`: tries the waiting message now, and enables the destination if it was disabled;
    /// false when there is no such destination.
    public func retry(_ name: String) -> Bool {
        guard let deliverer = deliverers.first(where: { $0.destination.name == name }) else { return false }
        logger.notice("outbox: retry asked", metadata: ["destination": "\(name)"])
        deliverer.retryNow()
        return true
    }

    /// The printers' names, in the configuration's order.
    public var printerNames: [String] { settings.printers.map(\.name) }

    /// The printers that print reports (`reports: true`), in the configuration's order.
    public var reportPrinterNames: [String] { settings.printers.filter(\.reports).map(\.name) }

    /// The paper form of `report` (an X, or a Z again) for `printer`, headed `title`.
    public func ticket(for report: ZReport, title: String, printer: String) -> KitchenTicket? {
        guard let settings = settings.printers.first(where: { $0.name == printer }) else { return nil }
        return KitchenTicket(report: report, title: title, columns: settings.columns, reprint: false)
    }

    /// The ticket `printer` prints for `cart` as it is now (a copy: REPRINT), or nil when it lists none of the
    /// cart's pizzas; nil also when there is no such printer.
    public func ticket(for cart: Cart, printer: String) -> KitchenTicket? {
        printers[printer]?.ticket(for: cart, reprint: true)
    }

    /// Prints `ticket` on `printer` now, beside the queue; the error in words when it could not.
    public func print(_ ticket: KitchenTicket, on printer: String) async -> String? {
        guard let destination = printers[printer] else { return "no printer named \(printer)" }
        return await destination.print(ticket).error
    }
}
