import CoreMetrics
import Foundation
import Logging
import PizzaCore
import PizzaReplication
import PizzaStorage
import SQLite

/// One shop of the chain bench: its own SQLite database with the repository every change goes through (persistence
/// and audit subscribed, as in pizzad), and pizzad's own shipper subscribed to it, shipping to the chain's
/// PgBouncer as the shop's own role. Fed in process, so that a thousand shops fit beside the centre on one machine.
/// A shop made with `ships: false` has no shipper: the same kitchen work, for loading the machine as a step does.
final class ChainShop: Sendable {
    let id: String
    let role: String
    let book: OrderBook
    let replicator: Replicator?
    private let shipping = Locked<Task<Void, Never>?>(nil)
    private let counter = Locked(0)

    static let actor = ChangeActor(uid: 0, name: "till", pid: getpid())
    static let pizzas: [Pizza] = {
        let factory = PizzaFactory()
        return [(try? factory.makePizza("cheese")), (try? factory.makePizza("chicken"))].compactMap { $0 }
    }()

    /// Opens (creates) the shop's database in `folder` and, when it `ships`, its shipper to `port` on 127.0.0.1.
    init(
        index: Int, folder: String, migrations: [Migration], centralMigrations: [Migration], port: Int,
        password: String, idleCheckSeconds: Int = 5, ships: Bool = true
    ) throws {
        id = String(format: "shop-%04d", index)
        role = String(format: "shop_%04d", index)
        // The shop's own durability is not what this measures (pizzabench's create step does): NORMAL spares the
        // machine a thousand shops' fsyncs, which would otherwise stand in for the centre's work.
        let store = try SQLiteOrderStore(
            path: "\(folder)/\(id).sqlite", migrations: migrations, settings: ConnectionSettings(synchronous: .normal),
            readers: 1)
        book = OrderBook(store: store)
        guard ships else {
            replicator = nil
            return
        }
        let passwordFile = "\(folder)/\(role).pw"
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        let configuration = ReplicationConfiguration(
            shopID: id, host: "127.0.0.1", port: port, database: "central", user: role, passwordFile: passwordFile,
            tls: .disable, batchSize: 500, timeoutSeconds: 10, idleCheckSeconds: idleCheckSeconds)
        var logger = Logger(label: "chain.\(id)")
        logger.logLevel = .critical  // a thousand shops each saying "cannot reach" once is not a report
        let replicator = try Replicator(
            configuration: configuration, store: store, migrations: centralMigrations,
            metrics: NOOPMetricsHandler.instance, environment: [:], logger: logger)
        book.repository.delegates += replicator
        self.replicator = replicator
    }

    /// Starts shipping (once).
    func start() {
        shipping.withLock { task in
            guard task == nil, let replicator else { return }
            task = Task { try? await replicator.run() }
        }
    }

    func stop() async {
        let task = shipping.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }

    /// One order as a till sends it: two pizzas, placed at once, with the till's own ticket number as `ref`.
    func order() async throws {
        let number = counter.withLock { count in
            count += 1
            return count
        }
        _ = try await book.repository.create(
            ref: "\(id)-\(number)", pizzas: Self.pizzas, place: true, currency: "EUR", by: Self.actor)
    }

    /// Entries written and not yet acknowledged by the centre, and the errors and batches of the shipper so far.
    var backlog: (events: Int64, errors: Int64, batches: Int64) {
        guard let status = replicator?.status() else { return (0, 0, 0) }
        return (status.latestSeq - status.shippedSeq, status.errors, status.batches)
    }

    /// Every audit entry's hash, in order (what the centre must hold for this shop, exactly once).
    func hashes() throws -> [String] {
        var hashes: [String] = []
        while true {
            let page = try book.store.auditEntries(after: Int64(hashes.count), limit: 5_000)
            guard !page.isEmpty else { return hashes }
            hashes += page.map(\.hash)
        }
    }
}
