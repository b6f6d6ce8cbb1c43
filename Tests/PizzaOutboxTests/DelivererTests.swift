import Foundation
import Logging
import PizzaCore
import PizzaStorage
import PizzaTesting
import Testing

@testable import PizzaOutbox

/// A destination that does what the test says: each send takes the next scripted outcome (delivered once the
/// script is used up) and is recorded with whether it was marked as sent again.
private final class ScriptedDestination: Destination, @unchecked Sendable {
    let name = "kitchen"
    let kind = DestinationKind.printer
    let events: Set<OutboxEvent> = [.placed]
    let marksAttempts: Bool
    let failureLimit: Duration?
    let idleInterval = Duration.seconds(3600)
    private let lock = NSLock()
    private var script: [DeliveryOutcome]
    private var sent: [(seq: Int64, again: Bool)] = []
    private let schedule: [Duration]

    init(
        _ script: [DeliveryOutcome], marksAttempts: Bool = true, failureLimit: Duration? = nil,
        schedule: [Duration] = [.seconds(5), .seconds(30), .seconds(120)]
    ) {
        self.script = script
        self.marksAttempts = marksAttempts
        self.failureLimit = failureLimit
        self.schedule = schedule
    }

    /// Each send so far: the entry and whether it was marked as sent again.
    var sends: [(seq: Int64, again: Bool)] { lock.withLock { sent } }

    func wants(_ entry: AuditEntry) -> Bool { entry.action == "placed" || entry.statusAfter == "placed" }

    func deliver(_ entry: AuditEntry, again: Bool) async -> DeliveryOutcome {
        lock.withLock {
            sent.append((entry.seq, again))
            return script.isEmpty ? .delivered : script.removeFirst()
        }
    }

    func delay(afterFailures failures: Int, outcome: DeliveryOutcome) -> Duration? {
        failures <= schedule.count ? schedule[failures - 1] : nil
    }

    func idle() async {}
}

/// A clock that moves only when the deliverer waits: each wait adds its length at once, so a schedule of minutes
/// or days runs in no time, and the time the deliverer records is exactly the waits it made.
private final class TestClock: DeliveryClock, @unchecked Sendable {
    private let lock = NSLock()
    private var milliseconds: Int64 = 1_800_000_000_000
    private var waits: [Duration] = []

    /// Every wait so far, in order.
    var waited: [Duration] { lock.withLock { waits } }

    func now() -> Timestamp { lock.withLock { Timestamp(millisecondsSince1970: milliseconds) } }

    func wait(_ duration: Duration, orUntil bell: Doorbell, stop: @Sendable () -> Bool) async {
        lock.withLock {
            waits.append(duration)
            milliseconds += duration.milliseconds
        }
        await Task.yield()
    }
}

/// The outbox's deliverer in process: a real SQLite store and its audit log, a destination that fails as scripted,
/// and a test clock. The retries, the reprint mark, the time budget, `outbox retry` and a restart, without a daemon,
/// a printer or a network (those are OutboxTests', against the real ones).
@Suite("The outbox's deliverer against a scripted destination and a test clock")
struct DelivererTests {
    static let migrations: [Migration] = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try! Migration.load(from: url.appendingPathComponent("migrations").path)
    }()

    /// A store over a real SQLite file, its repository and audit log.
    static func shop() throws -> (TemporaryFolder, OrderBook) {
        let folder = try TemporaryFolder("pizzad-deliverer")
        let book = OrderBook(store: try SQLiteOrderStore(path: folder.path + "/pizzad.sqlite", migrations: migrations))
        return (folder, book)
    }

    /// Places `count` orders: their audit entries are what the deliverer sends.
    static func place(_ count: Int, in book: OrderBook) async throws {
        for _ in 0..<count {
            _ = try await book.repository.create(
                customer: "Ann", pizzas: [try PizzaFactory().makePizza("cheese")], place: true, currency: "EUR",
                by: ChangeActor(uid: 1000, name: "cook", pid: 4242))
        }
    }

    /// Reads the deliverer's cursor (a new destination starts at the end of the log), places `orders`, and runs it
    /// until `done` holds (at most 120 s of real time: under the whole suite the first minute of it can be spent waiting for a thread), then stops it.
    static func run(
        _ deliverer: Deliverer, after orders: Int, in book: OrderBook, until done: @escaping @Sendable () -> Bool
    ) async throws {
        try await deliverer.prepare()
        try await place(orders, in: book)
        let running = Task { await deliverer.run() }
        let limit = ContinuousClock.now + .seconds(120)
        while !done(), ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(5)) }
        running.cancel()
        await running.value
        #expect(done(), "not done within 120 s: \(deliverer.progress)")
    }

    static let logger = Logger(label: "test")

    @Test(
        "each order in turn; a failure waits as the schedule says and the same entry goes again, nothing overtakes it")
    func retriesInOrder() async throws {
        let (folder, book) = try Self.shop()
        defer { folder.remove() }
        let destination = ScriptedDestination([.failed("paper out"), .failed("paper out")])
        let clock = TestClock()
        let deliverer = Deliverer(destination: destination, store: book.store, logger: Self.logger, clock: clock)
        try await Self.run(deliverer, after: 3, in: book) { deliverer.progress.delivered == 3 }
        try #require(destination.sends.count == 5, "\(destination.sends)")
        let sends = destination.sends
        // The first order three times (two failures, then delivered), then the others once each, in order.
        #expect(sends.map(\.seq) == [sends[0].seq, sends[0].seq, sends[0].seq, sends[3].seq, sends[4].seq])
        #expect(sends[3].seq < sends[4].seq && sends[0].seq < sends[3].seq)
        // A printer's "paper out" sent nothing: the next attempt is no reprint.
        #expect(sends.allSatisfy { !$0.again }, "\(sends)")
        #expect(clock.waited == [.seconds(5), .seconds(30)])
        let cursor = try #require(try book.store.outboxCursors().first)
        #expect(cursor.deliveredSeq == sends[4].seq && cursor.failingSince == nil && cursor.disabledAt == nil)
    }

    @Test("an outcome that is not known marks the next attempt as sent again (REPRINT); so does a restart after it")
    func reprint() async throws {
        let (folder, book) = try Self.shop()
        defer { folder.remove() }
        let destination = ScriptedDestination([.unknown("no answer after the ticket was sent")])
        let deliverer = Deliverer(destination: destination, store: book.store, logger: Self.logger, clock: TestClock())
        try await Self.run(deliverer, after: 1, in: book) { deliverer.progress.delivered == 1 }
        #expect(destination.sends.map(\.again) == [false, true])

        // A daemon killed while a ticket was on its way: the attempt was recorded before the send, so the one
        // started after it says REPRINT.
        let (crashedFolder, crashed) = try Self.shop()
        defer { crashedFolder.remove() }
        _ = try await crashed.store.outboxCursor(name: "kitchen", kind: "printer")
        try await Self.place(1, in: crashed)
        let seq = try #require(try crashed.store.auditEntries(after: 0, limit: 10).last?.seq)
        try await crashed.store.recordAttempt(name: "kitchen", seq: seq)
        let after = ScriptedDestination([])
        let restarted = Deliverer(destination: after, store: crashed.store, logger: Self.logger, clock: TestClock())
        try await Self.run(restarted, after: 0, in: crashed) { restarted.progress.delivered == 1 }
        #expect(after.sends.map(\.again) == [true])
    }

    @Test("failing longer than its time budget disables it, with why; outbox retry enables it and it delivers")
    func timeBudget() async throws {
        let (folder, book) = try Self.shop()
        defer { folder.remove() }
        // Waits of 5 min against a budget of 12 min: the fourth failure is 15 min after the first.
        let destination = ScriptedDestination(
            Array(repeating: .failed("connection refused"), count: 4), failureLimit: .seconds(720),
            schedule: Array(repeating: .seconds(300), count: 10))
        let clock = TestClock()
        let deliverer = Deliverer(destination: destination, store: book.store, logger: Self.logger, clock: clock)
        try await deliverer.prepare()
        try await Self.place(2, in: book)
        let running = Task { await deliverer.run() }
        defer { running.cancel() }
        let disabled = ContinuousClock.now + .seconds(120)
        while deliverer.progress.cursor?.disabledAt == nil, ContinuousClock.now < disabled {
            try await Task.sleep(for: .milliseconds(5))
        }
        let cursor = try #require(deliverer.progress.cursor)
        #expect(destination.sends.count == 4, "\(destination.sends)")
        #expect(clock.waited == [.seconds(300), .seconds(300), .seconds(300)])
        #expect(cursor.disabledReason?.contains("longer than 12 minutes") == true, "\(cursor)")
        #expect(try book.store.outboxCursors().first?.disabledAt == cursor.disabledAt)
        #expect(deliverer.progress.delivered == 0)

        deliverer.retryNow()
        let delivered = ContinuousClock.now + .seconds(120)
        while deliverer.progress.delivered < 2, ContinuousClock.now < delivered {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(deliverer.progress.delivered == 2)
        #expect(deliverer.progress.cursor?.disabledAt == nil)
    }

    @Test("a receiver that says it is gone is disabled at once; when its schedule is over it is disabled too")
    func goneAndScheduleOver() async throws {
        let (folder, book) = try Self.shop()
        defer { folder.remove() }
        for (round, (script, schedule, why)) in [
            ([DeliveryOutcome.gone("410 Gone")], [Duration.seconds(5)], "it is gone"),
            (
                Array(repeating: DeliveryOutcome.failed("500"), count: 3), [.seconds(5), .seconds(5)],
                "retries are over"
            ),
        ].enumerated() {
            // Enabled again (as outbox retry does) before the second receiver.
            if round > 0 { try await book.store.recordDisabled(name: "kitchen", reason: nil) }
            let destination = ScriptedDestination(script, marksAttempts: false, schedule: schedule)
            let deliverer = Deliverer(
                destination: destination, store: book.store, logger: Self.logger, clock: TestClock())
            try await Self.run(deliverer, after: round == 0 ? 1 : 0, in: book) {
                deliverer.progress.cursor?.disabledAt != nil
            }
            #expect(deliverer.progress.cursor?.disabledReason?.contains(why) == true, "\(deliverer.progress)")
            #expect(destination.sends.count == script.count)
        }
    }
}
