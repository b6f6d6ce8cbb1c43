import CoreMetrics
import Foundation
import InMemoryLogging
import Logging
import PizzaCore
import PizzaReplication
import PizzaStorage
import PizzaTesting
import Testing

/// A shop in a temporary folder: a real SQLite store with its storage subscribers, and a shipper to a
/// ``TestCentre``, its log kept in memory.
final class ShippingShop {
    let temporary: TemporaryFolder
    var folder: String { temporary.path }
    let orders: OrderBook
    let centre = TestCentre()
    let log = InMemoryLogHandler()
    let replicator: Replicator
    private var running: Task<Void, any Error>?

    static let migrations: [Migration] = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try! Migration.load(from: url.appendingPathComponent("migrations").path)
    }()

    init(batchSize: Int = 7) throws {
        temporary = try TemporaryFolder("pizzad-shipper")
        orders = OrderBook(
            store: try SQLiteOrderStore(path: temporary.path + "/pizzad.sqlite", migrations: Self.migrations))
        let configuration = ReplicationConfiguration(
            shopID: "paris", host: "centre.invalid", database: "chain", user: "paris", batchSize: batchSize)
        let log = log
        replicator = try Replicator(
            configuration: configuration, store: orders.store, migrations: [], metrics: NOOPMetricsHandler.instance,
            environment: [:], logger: Logger(label: "shipper") { _ in log }, client: centre)
        orders.repository.delegates += replicator
    }

    deinit {
        running?.cancel()
    }

    func start() { running = Task { [replicator] in try await replicator.run() } }

    func stop() async {
        running?.cancel()
        _ = await running?.result
        running = nil
    }

    @discardableResult
    func order() async throws -> Cart {
        try await orders.repository.create(
            pizzas: [try PizzaFactory().makePizza("cheese")], place: true, currency: "EUR",
            by: ChangeActor(uid: 0, name: "root", pid: 1)
        ).cart
    }

    /// Waits (up to a minute: the tests' machine may be busy) until `condition` holds.
    func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw Timeout(
                    what: what, status: replicator.status(), connections: centre.state.value.connections,
                    log: log.entries.map { "\($0.level): \($0.message)" })
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// What was waited for, and what the shipper had done: its status, the connections the centre saw and its log
    /// (whether `run()` began at all: it logs "replication on" first).
    struct Timeout: Error, CustomStringConvertible {
        let what: String
        let status: ReplicationStatus
        let connections: Int
        let log: [String]
        var description: String {
            "\(what) did not happen within 60 s; the shipper: \(status); the centre's connections: \(connections); "
                + "the shipper's log: \(log)"
        }
    }

    func messages(at level: Logger.Level) -> [String] {
        log.entries.filter { $0.level == level }.map { "\($0.message)" }
    }
}

@Suite("The shipper's logic, against a centre in process")
struct ShipperTests {
    @Test("every entry reaches the centre once and in order, in batches of at most batchSize, and the mark is kept")
    func shipsEverything() async throws {
        let shop = try ShippingShop()
        for _ in 0..<20 { try await shop.order() }
        shop.start()
        for _ in 0..<20 { try await shop.order() }
        try await shop.waitUntil("40 entries shipped") { shop.centre.cursor == 40 }
        #expect(shop.centre.state.value.stored.values.allSatisfy { $0 == 1 })
        #expect(shop.centre.state.value.batches >= 6, "40 entries in batches of 7")
        try await shop.waitUntil("the mark recorded") { (try? shop.orders.store.replicationMark().shippedSeq) == 40 }
        await shop.stop()
        #expect(shop.replicator.status().state == .idle || shop.replicator.status().state == .shipping)
    }

    @Test(
        "an unreachable centre is retried with growing waits, said once, and shipping goes on when it is back")
    func retriesUntilTheCentreIsBack() async throws {
        let shop = try ShippingShop()
        let down = ReplicationError.unreachable(peer: "paris@centre.invalid:5432/chain", detail: "connection refused")
        shop.centre.state.withLock { $0.refuseConnections = Array(repeating: down, count: 4) }
        for _ in 0..<5 { try await shop.order() }
        let started = ContinuousClock.now
        shop.start()
        try await shop.waitUntil("5 entries shipped") { shop.centre.cursor == 5 }
        // Waits of at least 0.125, 0.25, 0.5 and 1 s (half of each step at least, by the jitter).
        #expect(ContinuousClock.now - started >= .milliseconds(1875))
        #expect(shop.centre.state.value.connections == 5)
        #expect(shop.messages(at: .warning).count == 1, "\(shop.messages(at: .warning))")
        #expect(shop.messages(at: .notice).contains { $0.contains("replication connected again") })
        let status = shop.replicator.status()
        #expect(status.lastError == nil && status.errors == 4)
        await shop.stop()
    }

    @Test("a centre that answers a small batch slowly (queueing) gets the next one seconds later, holding more entries")
    func slowCentreGetsFewerBatches() async throws {
        let shop = try ShippingShop(batchSize: 50)
        shop.start()
        try await shop.order()
        try await shop.waitUntil("the first entry shipped") { shop.centre.cursor == 1 }
        // The next batch waits 3 s for its answer; five orders come meanwhile, so the shipper is never idle (a
        // quiet spell would end the spacing) and they wait for the spaced batch after it.
        shop.centre.state.withLock { $0.answerDelays = [.seconds(3)] }
        try await shop.order()
        try await shop.waitUntil("the slow batch sent") { shop.centre.state.value.arrivals.count == 2 }
        // At once, so that they commit together even on a machine too busy to make one a second.
        let repository = shop.orders.repository
        let pizza = try PizzaFactory().makePizza("cheese")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    _ = try await repository.create(
                        pizzas: [pizza], place: true, currency: "EUR", by: ChangeActor(uid: 0, name: "root", pid: 1))
                }
            }
            try await group.waitForAll()
        }
        try await shop.waitUntil("the next entries shipped") { shop.centre.cursor == 7 }
        let arrivals = shop.centre.state.value.arrivals
        // Three seconds in the queue against a first answer of about a millisecond: 20 times that, at most 10 s.
        #expect(arrivals.count >= 3 && arrivals[2].at - arrivals[1].at > .seconds(5), "\(arrivals)")
        #expect(arrivals.count <= 4, "the five entries in one batch, two at most on a busy machine: \(arrivals)")
        #expect(shop.messages(at: .notice).filter { $0.hasPrefix("the centre is queueing") }.count == 1)
        await shop.stop()
    }

    @Test("the backoff doubles from 0.25 s to at most 30 s, each wait between half and all of its step")
    func backoff() {
        for failures in 1...40 {
            let ceiling = min(30.0, 0.25 * pow(2, Double(min(failures - 1, 16))))
            for _ in 0..<50 {
                let wait = Replicator.backoff(after: failures)
                #expect(wait >= .seconds(ceiling / 2) && wait <= .seconds(ceiling), "after \(failures)")
            }
        }
    }

    @Test(
        "a centre that lost entries answers with a rewind, and the shipper sends again from its cursor until the centre holds every entry"
    )
    func rewind() async throws {
        let shop = try ShippingShop()
        shop.start()
        for _ in 0..<10 { try await shop.order() }
        try await shop.waitUntil("10 shipped") { shop.centre.cursor == 10 }
        shop.centre.state.withLock { $0.forgetAfter = 3 }
        for _ in 0..<5 { try await shop.order() }
        try await shop.waitUntil("15 shipped after the rewind") { shop.centre.cursor == 15 }
        #expect(shop.messages(at: .notice).contains { $0.contains("re-sending from its cursor") })
        await shop.stop()
    }

    @Test("a centre whose history differs stops the shipper until an operator acts: diverged, said once, no retry")
    func diverged() async throws {
        let shop = try ShippingShop()
        shop.centre.state.withLock { $0.hashes[1] = String(repeating: "f", count: 64) }
        try await shop.order()
        shop.start()
        try await shop.waitUntil("stopped") { shop.replicator.status().state == .stopped }
        try await Task.sleep(for: .milliseconds(500))
        #expect(shop.centre.state.value.connections == 1)
        #expect(shop.replicator.status().lastErrorKind == "diverged")
        #expect(shop.messages(at: .error).count == 1)
        await shop.stop()
    }

    @Test(
        "an answer pizzad does not understand (a cursor behind the batch) is an error, retried, and the entries still arrive once"
    )
    func answerBehindTheBatch() async throws {
        let shop = try ShippingShop()
        for _ in 0..<3 { try await shop.order() }
        shop.centre.state.withLock { $0.answerCursor = 1 }
        shop.start()
        try await shop.waitUntil("3 shipped") { shop.centre.cursor == 3 }
        #expect(shop.replicator.status().errors == 1)
        #expect(
            shop.messages(at: .warning).contains { $0.contains("the centre answered cursor 1 for entries up to 3") })
        #expect(shop.centre.state.value.stored.values.allSatisfy { $0 == 1 })
        await shop.stop()
    }

    @Test("a batch the centre refuses again and again (its disk full) is said once, and goes in when it can")
    func refusedBatchSaidOnce() async throws {
        let shop = try ShippingShop()
        let full = ReplicationError.central(detail: "the central disk is full: could not extend file")
        shop.centre.state.withLock { $0.refuseBatches = Array(repeating: full, count: 3) }
        try await shop.order()
        shop.start()
        try await shop.waitUntil("1 shipped") { shop.centre.cursor == 1 }
        #expect(shop.messages(at: .warning).filter { $0.contains("disk is full") }.count == 1)
        await shop.stop()
    }
}
