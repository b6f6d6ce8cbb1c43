import Foundation
import PizzaCore
import PizzaStorage
import PizzaTesting

/// A chain on one centre: N shops, each with its own SQLite database and pizzad's own shipper, fed live in this
/// process, shipping through a real PgBouncer (transaction pooling) into one durable PostgreSQL. For each N, the
/// shops are fed as fast as this machine allows, then drained; then a busy evening of 1,000 shops (an order every
/// 10 s each, ``eveningSeconds``); then PgBouncer and PostgreSQL restarted under load (``faultSeconds``); and every
/// shop's history checked at the centre. Each step's rows are loaded with COPY into new tables (the target's
/// baseline) and into the centre's own tables as full as the step left them; with `beside`, a saturated step's
/// also into new tables while as many shops without a shipper are fed as fast as the step fed its own (the
/// kitchens), to show how much the machine the centre shares costs COPY.
///
/// `pizzabench chain [--shops 10,100,1000] [--seconds S] [--idle-check I] [--beside] [--saturated-only]`: S is
/// each saturated step's time, I each shop's `replication.idleCheckSeconds`.
enum ChainBench {
    /// How long the busy evening lasts, and the step with the restarts.
    static let eveningSeconds = 60.0
    static let faultSeconds = 30.0

    static func report(
        work: String, shopCounts: [Int], seconds: Double, idleCheckSeconds: Int, beside: Bool = false,
        saturatedOnly: Bool = false
    ) async throws -> Bool {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try FileManager.default.createDirectory(atPath: work + "/shops", withIntermediateDirectories: true)
        let migrations = try Migration.load(from: Steps.migrations)
        let centralMigrations = try Migration.load(from: Steps.migrations + "/central")
        let centre = try await ChainCentre(folder: work, centralMigrations: centralMigrations)
        let token = LeftBehind.stopOnInterrupt {
            try? centre.bouncer.stop()
            try? centre.server.stop(mode: "immediate")
        }
        defer { LeftBehind.done(token) }
        let version = try centre.sql("SHOW server_version")
        print(
            "chain: shops with pizzad's own shipper (in process, one SQLite database each) → PgBouncer "
                + "(transaction pooling, each shop's own login, one pool of \(ChainCentre.serverConnections) server "
                + "connections as a pooled role) → "
                + "PostgreSQL \(version) (fsync on), all on this machine")

        var shops: [ChainShop] = []
        var kitchens: [ChainShop] = []
        func grow(to count: Int) async throws {
            guard count > shops.count else { return }
            try centre.addShops(shops.count..<count)
            for index in shops.count..<count {
                let shop = try ChainShop(
                    index: index, folder: work + "/shops", migrations: migrations,
                    centralMigrations: centralMigrations, port: centre.bouncer.port, password: "secret-\(index)",
                    idleCheckSeconds: idleCheckSeconds)
                shop.start()
                shops.append(shop)
            }
        }
        func growKitchens(to count: Int) throws {
            try FileManager.default.createDirectory(atPath: work + "/kitchens", withIntermediateDirectories: true)
            for index in kitchens.count..<max(count, kitchens.count) {
                kitchens.append(
                    try ChainShop(
                        index: index, folder: work + "/kitchens", migrations: migrations, centralMigrations: [],
                        port: 0, password: "", ships: false))
            }
        }
        var phases: [Phase] = []
        for count in shopCounts.sorted() {
            try await grow(to: count)
            if beside { try growKitchens(to: count) }
            phases.append(
                try await saturate(
                    Array(shops.prefix(count)), kitchens: Array(kitchens.prefix(count)), centre: centre,
                    seconds: seconds))
        }
        if saturatedOnly {
            table(phases)
            for shop in shops { await shop.stop() }
            return false
        }
        try await grow(to: 1_000)
        let eveningPhase = try await paced(
            "evening", shops, centre: centre, seconds: eveningSeconds, interval: 10, faults: false)
        let faultPhase = try await paced(
            "faults", shops, centre: centre, seconds: faultSeconds, interval: 2, faults: true)
        table(phases + [eveningPhase, faultPhase])

        // Every shop's history at the centre: the same count, no gap, the same hashes in the same order.
        let central = try centre.histories()
        var exact = 0
        for shop in shops where central[shop.id] == ChainCentre.history(try shop.hashes()) { exact += 1 }
        for shop in shops { await shop.stop() }
        print("exactly once: \(exact) of \(shops.count) shops (count, first and last sequence number, every hash)")

        let saturated = phases.last
        let copyRatio = (saturated?.postgresMicroseconds ?? 0) / max(saturated?.copyMicroseconds ?? 1, 0.001)
        let eveningHeld = eveningPhase.lag.p99 < 1_000
        let copyHeld = copyRatio <= 2
        let intoCentreRatio =
            (saturated?.postgresMicroseconds ?? 0) / max(saturated?.intoCentreMicroseconds ?? 1, 0.001)
        print(
            "chain targets: busy evening (1,000 shops, an order every 10 s each) lag p99 "
                + "\(Bench.format(eveningPhase.lag.p99, 0)) ms (target < 1,000): \(eveningHeld ? "held" : "NOT held"); "
                + "at saturation (\(saturated?.shops ?? 0) shops) the centre's CPU per event "
                + "\(Bench.format(copyRatio, 2))× COPY's (target ≤ 2): \(copyHeld ? "held" : "NOT held") "
                + "(\(Bench.format(intoCentreRatio, 2))× COPY's into the centre's own tables, not the target)")
        return eveningHeld && copyHeld && exact == shops.count
    }

    /// Every shop fed as fast as it goes for `seconds`, then drained; `kitchens` (as many shops without a shipper)
    /// are fed the same way while COPY loads the step's rows a second time.
    static func saturate(
        _ shops: [ChainShop], kitchens: [ChainShop], centre: ChainCentre, seconds: Double
    ) async throws -> Phase {
        var phase = Phase(name: "saturated", shops: shops.count)
        let fed = Locked(0)
        try await measure(&phase, shops, centre: centre, kitchens: kitchens) {
            let end = ContinuousClock.now + .seconds(seconds)
            let orders = try await feed(shops) { ContinuousClock.now < end }
            fed.withLock { $0 = orders }
        }
        phase.fedPerSecond = Double(fed.value) / seconds
        return phase
    }

    /// Orders into `shops` as fast as they go, by 32 feeders (or one a shop) taking the shops in turn, while
    /// `running` says so; how many.
    static func feed(_ shops: [ChainShop], while running: @escaping @Sendable () -> Bool) async throws -> Int {
        let feeders = min(shops.count, 32)
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for feeder in 0..<feeders {
                group.addTask {
                    var index = feeder
                    var orders = 0
                    while running() {
                        try await shops[index].order()
                        orders += 1
                        index += feeders
                        if index >= shops.count { index = feeder }
                    }
                    return orders
                }
            }
            return try await group.reduce(0, +)
        }
    }

    /// `work` on a thread of its own while `kitchens` are fed as a saturated step feeds its shops; with the orders
    /// a second they were fed meanwhile.
    static func beside<Value: Sendable>(
        _ kitchens: [ChainShop], _ work: @escaping @Sendable () throws -> Value
    ) async throws -> (value: Value, fedPerSecond: Double) {
        let done = Locked(false)
        let started = ContinuousClock.now
        async let feeding = feed(kitchens) { !done.value }
        try await Task.sleep(for: .seconds(1))  // the feeders up to speed
        let result = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Result { try work() }) }
        }
        done.withLock { $0 = true }
        let orders = try await feeding
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (try result.get(), Double(orders) / max(seconds, 0.001))
    }

    /// Each shop an order every `interval` seconds (its first at a random moment in the first interval), for
    /// `seconds`; with `faults`, PgBouncer is restarted a third of the way in and PostgreSQL two thirds.
    static func paced(
        _ name: String, _ shops: [ChainShop], centre: ChainCentre, seconds: Double, interval: Double, faults: Bool
    ) async throws -> Phase {
        var phase = Phase(name: name, shops: shops.count)
        try await measure(&phase, shops, centre: centre) {
            let start = ContinuousClock.now
            let end = start + .seconds(seconds)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for shop in shops {
                    group.addTask {
                        var next = start + .seconds(Double.random(in: 0..<interval))
                        while next < end {
                            try await Task.sleep(until: next, clock: .continuous)
                            try await shop.order()
                            next += .seconds(interval)
                        }
                    }
                }
                if faults {
                    group.addTask {
                        try await Task.sleep(until: start + .seconds(seconds / 3), clock: .continuous)
                        try centre.bouncer.restart()
                        try await Task.sleep(until: start + .seconds(seconds * 2 / 3), clock: .continuous)
                        try centre.server.stop(mode: "fast")
                        try centre.server.start()
                    }
                }
                try await group.waitForAll()
            }
        }
        return phase
    }

    /// Runs `load`, waits until the centre holds everything, and fills in `phase`'s figures; with `kitchens`, the
    /// COPY baseline a second time beside them (``beside(_:_:)``).
    private static func measure(
        _ phase: inout Phase, _ shops: [ChainShop], centre: ChainCentre, kitchens: [ChainShop] = [],
        load: () async throws -> Void
    ) async throws {
        try await drain(shops)
        // What the steps before left to write out is not this step's work (nor is it COPY's, which also starts
        // after a checkpoint); each step vacuums its own rows at its end.
        _ = try centre.sql("VACUUM ANALYZE")
        _ = try centre.sql("CHECKPOINT")
        let eventsBefore = try centre.events()
        let errorsBefore = shops.reduce(0) { $0 + $1.backlog.errors }
        let batchesBefore = shops.reduce(0) { $0 + $1.backlog.batches }
        let startText = try centre.now()
        let cpuBefore = (try centre.server.cpuSeconds(), centre.bouncer.cpuSeconds())
        let waiting = Locked(0)
        let sampler = Task.detached {
            while !Task.isCancelled {
                if let now = try? centre.bouncer.waitingClients() { waiting.withLock { $0 = Swift.max($0, now) } }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        let started = ContinuousClock.now
        try await load()
        let endText = try centre.now()
        try await drain(shops)
        let elapsed = ContinuousClock.now - started
        phase.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        sampler.cancel()
        // The step's rows vacuumed, billed to it as COPY's are to the baseline: autovacuum does some of it during
        // the step and some after, whenever its thresholds fall, and a fifth of a step's CPU was billed or not by
        // that chance (measured at 1,000 shops: 7.6 s of 35). Not analysed: ANALYZE reads a sample of the same size
        // whatever the step wrote.
        _ = try centre.sql("VACUUM")
        // PostgreSQL was restarted in the faults phase: its CPU from before is gone with its processes.
        let postgresNow = try centre.server.cpuSeconds()
        phase.postgresCPU = postgresNow >= cpuBefore.0 ? postgresNow - cpuBefore.0 : postgresNow
        let bouncerNow = centre.bouncer.cpuSeconds()
        phase.bouncerCPU = bouncerNow >= cpuBefore.1 ? bouncerNow - cpuBefore.1 : bouncerNow
        phase.events = try centre.events() - eventsBefore
        phase.errors = shops.reduce(0) { $0 + $1.backlog.errors } - errorsBefore
        phase.batches = shops.reduce(0) { $0 + $1.backlog.batches } - batchesBefore
        phase.waitingMax = waiting.value
        phase.lag = try centre.lag(from: startText, to: endText)
        let files = try centre.exportForCopy(since: startText)
        defer { files.remove() }
        phase.copyCPU = try centre.loadWithCopy(files)
        phase.copyMicroseconds = phase.copyCPU * 1e6 / Double(max(files.count, 1))
        let renamed = try centre.exportForCopy(since: startText, renamed: true)
        defer { renamed.remove() }
        phase.intoCentreCPU = try centre.loadIntoCentre(renamed)
        phase.intoCentreMicroseconds = phase.intoCentreCPU * 1e6 / Double(max(renamed.count, 1))
        if !kitchens.isEmpty {
            (phase.besideCPU, phase.besideFedPerSecond) = try await beside(kitchens) { try centre.loadWithCopy(files) }
            phase.besideMicroseconds = phase.besideCPU * 1e6 / Double(max(files.count, 1))
        }
    }

    /// Waits until no shop has anything left to ship (at most 10 minutes).
    static func drain(_ shops: [ChainShop]) async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            if shops.allSatisfy({ $0.backlog.events == 0 }) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        let behind = shops.filter { $0.backlog.events > 0 }
        throw BenchError(
            "\(behind.count) shops still had entries to ship after 10 minutes: \(behind.prefix(3).map(\.id))")
    }
}
