import Foundation
import PizzaCore
import PizzaStorage
import PizzaTesting
import PizzaWire
import SQLite

/// Closing the day at a year's scale (CONTRACT section 18): a busy shop's year (150,000 orders, each placed with two
/// pizzas and a drink and paid, a Z at the end of each of 365 days) built through ``OrderBook`` as the daemon writes
/// it; then `report.x` and a Z timed on it, and how long the Z holds the writer against an order's commit. Then the
/// daemon under 16 clients creating orders, alone and with `report.x` every 5 s, taking turns: the X must leave the
/// order rate at 0.9× or more.
enum ReportsBench {
    static let targets = (x: 1.0, z: 2.0, rate: 0.9)

    static let menu = Menu(
        currency: "EUR", kinds: Menu.standard.kinds, crusts: Menu.standard.crusts, extras: Menu.standard.extras,
        products: [MenuProduct(id: "cola-033", name: "Cola 0.33 l", category: "drinks", price: 250, tax: "drinks")],
        taxes: ["food": 700, "drinks": 1900], pizzaTax: "food")

    static func report(
        pizzad: String, work: String, migrations: String, orders: Int, days: Int, seconds: Double, rounds: Int
    ) async throws -> Bool {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let path = work + "/year.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var settings = ConnectionSettings()
        settings.synchronous = .off
        let store = try SQLiteOrderStore(
            path: path, migrations: try Migration.load(from: migrations), settings: settings)
        let book = OrderBook(store: store)
        let commits = Locked<[Duration]>([])
        store.observeGroupCommits { _, duration in commits.withLock { $0.append(duration) } }

        let built = ContinuousClock.now
        let perDay = max(1, orders / days)
        for day in 0..<days {
            try await Self.day(book, orders: perDay, seed: day)
            _ = try await book.closePeriod(ref: "day-\(day + 1)", by: Self.actor(0))
        }
        let orderCommits = commits.withLock { $0 }
        let buildTime = ContinuousClock.now - built
        let entries = try store.read { try $0.statement("SELECT max(seq) FROM audit_log").first { $0.int64(0) } ?? 0 }
        print(
            "A year: \(perDay * days) orders (\(perDay) a day, each placed and paid), \(days) Zs, \(entries) audit "
                + "entries, built in \(Bench.format(Double(buildTime.components.seconds), 0)) s")

        // Half a day more, then X (on a reader) and a Z (timed, and its commit's hold on the writer).
        try await Self.day(book, orders: perDay / 2, seed: days)
        var xTimes: [Double] = []
        var x: ZReport?
        for _ in 0..<5 {
            let started = ContinuousClock.now
            x = try store.xReport()
            xTimes.append((ContinuousClock.now - started).seconds)
        }
        commits.withLock { $0 = [] }
        let zStarted = ContinuousClock.now
        let z = try await book.closePeriod(ref: nil, by: Self.actor(0))
        let zTime = (ContinuousClock.now - zStarted).seconds
        let zHold = commits.withLock { $0 }.map(\.seconds).max() ?? 0
        let orderHold = Self.median(orderCommits.map(\.seconds))
        // The first X folds the day so far (cold); the next fold on from it (nothing new here).
        let xMedian = xTimes.first ?? 0
        print(
            "report.x (\(x?.placed.count ?? 0) orders since the last Z): first \(Bench.format(xMedian * 1000, 1)) ms, "
                + "then \(Bench.format(Self.median(Array(xTimes.dropFirst())) * 1000, 2)) ms (target under "
                + "\(Bench.format(targets.x, 0)) s)")
        print(
            "Z \(z.number) (\(z.placed.count) orders): \(Bench.format(zTime * 1000, 1)) ms (target under "
                + "\(Bench.format(targets.z, 0)) s); its commit held the writer \(Bench.format(zHold * 1000, 2)) ms, "
                + "a group commit of orders \(Bench.format(orderHold * 1000, 2)) ms (median): no scan inside it")
        await store.close()

        // The daemon: order.create at 16 clients, alone and with report.x every 5 s, taking turns.
        print("order.create at 16 clients, alone and beside report.x every 5 s")
        print("round | alone (orders/s) | with X (orders/s) | ratio | X answers")
        var ratios: [Double] = []
        for round in 1...rounds {
            var rates: [String: Double] = [:]
            var answers = 0
            for step in round % 2 == 1 ? ["alone", "with"] : ["with", "alone"] {
                let daemon = try PizzadProcess(
                    binary: pizzad, directory: work + "/load-\(round)-\(step)", logLevel: "warning")
                defer { _ = try? daemon.stop() }
                let stop = Locked(false)
                let asked = Locked(0)
                let asker = Thread {
                    var next = Bench.now() + 5_000_000_000
                    while !stop.withLock({ $0 }) {
                        if Bench.now() >= next {
                            if (try? Self.askX(daemon.socket)) != nil { asked.withLock { $0 += 1 } }
                            next += 5_000_000_000
                        }
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                }
                if step == "with" { asker.start() }
                let result = try Load.create(daemon: daemon, clients: 16, seconds: seconds)
                stop.withLock { $0 = true }
                rates[step] = result.perSecond
                if step == "with" { answers = asked.withLock { $0 } }
            }
            let ratio = (rates["with"] ?? 0) / max(1, rates["alone"] ?? 1)
            ratios.append(ratio)
            print(
                "\(round) | \(Bench.format(rates["alone"] ?? 0, 0)) | \(Bench.format(rates["with"] ?? 0, 0)) | "
                    + "\(Bench.format(ratio, 2))× | \(answers)")
        }
        let ratio = Self.median(ratios)
        let held = xMedian < targets.x && zTime < targets.z && ratio >= targets.rate
        print(
            "Verdict: X \(Bench.format(xMedian * 1000, 1)) ms, Z \(Bench.format(zTime * 1000, 1)) ms, order rate with X "
                + "\(Bench.format(ratio, 2))× (target ≥ \(targets.rate)×): \(held ? "held" : "NOT HELD")")
        return held
    }

    /// One day's orders: each created placed (two pizzas and a drink, from one of three tills or a platform), then
    /// paid by cash or card, many in flight at once as tills send them.
    static func day(_ book: OrderBook, orders: Int, seed: Int) async throws {
        let factory = PizzaFactory(menu: menu)
        let pizzas = [try factory.builder(for: "chicken").size("L").build(), try factory.makePizza("cheese")]
        let cola = try factory.product("cola-033")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<16 {
                group.addTask {
                    var index = lane
                    while index < orders {
                        let actor = Self.actor(seed &+ index)
                        let cart = try await book.repository.perform(
                            .create(NewOrder(pizzas: pizzas, products: [cola], place: true, currency: "EUR")),
                            by: actor
                        ).cart
                        _ = try await book.repository.perform(
                            .pay(index % 3 == 0 ? .cash : .card, amount: cart.total, ref: nil, order: cart.id),
                            by: actor)
                        index += 16
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func actor(_ index: Int) -> ChangeActor {
        let devices = ["till-1", "till-2", "till-3", "lieferdienst"]
        return ChangeActor(uid: 0, name: "pizzad", pid: 1, device: devices[index % devices.count])
    }

    /// `report.x` over the socket, on a connection of its own.
    static func askX(_ socket: String) throws {
        let connection = try RawConnection(path: socket, receiveTimeout: 30)
        try connection.send(#"{"jsonrpc":"2.0","method":"report.x","id":1}"# + "\n")
        _ = try connection.readLine()
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }
}

extension Duration {
    /// In seconds, as a double.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
