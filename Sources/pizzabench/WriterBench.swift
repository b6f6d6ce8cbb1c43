import Foundation
import PizzaCore
import PizzaStorage
import SQLite

/// The storage path on its own, in this process: no socket, no parsing, no other process on the CPU. Tasks create
/// two-pizza placed orders through ``OrderBook`` (repository, persistence, audit) on a real `SQLiteOrderStore`, as
/// the daemon's request handlers do. With `synchronous=OFF` only CPU counts, which makes this the steady figure to
/// compare a change to the writer with, where the whole daemon's figures drift with the disk and the clients.
enum WriterBench {
    struct Run {
        let synchronous: ConnectionSettings.Synchronous
        let perSecond: Double
        /// The whole process's CPU (the writer thread and the tasks) per order, µs.
        let cpuPerOrder: Double
    }

    static func measure(
        synchronous: ConnectionSettings.Synchronous, orders: Int, tasks: Int = 16, folder: String,
        migrations: String
    ) async throws -> Run {
        let directory = folder + "/writer-\(synchronous.rawValue)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = ConnectionSettings()
        settings.synchronous = synchronous
        let store = try SQLiteOrderStore(
            path: directory + "/pizzad.sqlite", migrations: try Migration.load(from: migrations), settings: settings)
        let book = OrderBook(store: store)
        let factory = PizzaFactory()
        let pizzas = [try factory.builder(for: "chicken").size("L").build(), try factory.makePizza("cheese")]
        let actor = ChangeActor(uid: 0, name: "root", pid: 4242)
        let perTask = max(1, orders / tasks)
        let cpuBefore = processCPUSeconds()
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<perTask {
                        _ = try await book.repository.create(
                            customer: "bench", pizzas: pizzas, place: true, currency: "EUR", by: actor)
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        let cpu = processCPUSeconds() - cpuBefore
        await store.close()
        let total = Double(perTask * tasks)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Run(synchronous: synchronous, perSecond: total / seconds, cpuPerOrder: cpu / total * 1e6)
    }

    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }
}
