import Foundation
import PizzaCore
import PizzaStorage
import PizzaTesting
import Synchronization

enum Fixtures {
    /// The repository's `migrations/` folder.
    static let migrationsPath: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("migrations").path
    }()

    static let migrations = try! Migration.load(from: migrationsPath)

    /// A pizzad 0.4.0 database (schema 6) with orders, made in `folder` (``OldShop``); its path.
    static func schema6Database(in folder: TemporaryFolder) throws -> String {
        let path = folder.path + "/schema6-\(UInt32.random(in: 0...UInt32.max)).sqlite"
        try OldShop.database(at: path)
        return path
    }

    static let actor = ChangeActor(uid: 1000, name: "cook", pid: 4242)
    static let factory = PizzaFactory()

    /// Runs a command and returns its standard output; fails the test on a non-zero exit.
    static func run(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.runWithCleanSignals()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func sqlite3(_ path: String, _ sql: String) throws -> String {
        try run(["sqlite3", path, sql]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func sha256(of path: String) throws -> String {
        try run(["sha256sum", path]).output.split(separator: " ").first.map(String.init) ?? ""
    }
}

/// A repository over a real SQLite file with its persistence layer and audit logger subscribed.
final class Kitchen {
    let directory: TemporaryFolder
    /// The store, repository and storage subscribers, wired as the daemon wires them.
    let orders: OrderBook
    var store: SQLiteOrderStore { orders.store }
    var repository: OrderRepository<SQLiteOrderStore> { orders.repository }
    var path: String { store.path }

    init() throws {
        directory = try TemporaryFolder("pizzad-test")
        orders = OrderBook(
            store: try SQLiteOrderStore(path: directory.path + "/pizzad.sqlite", migrations: Fixtures.migrations))
    }

    func newOrder(_ kinds: [String] = ["cheese", "chicken"], place: Bool = false) async throws -> Cart {
        try await repository.create(
            customer: "Ann", pizzas: try kinds.map { try Fixtures.factory.makePizza($0) }, place: place,
            currency: "EUR", by: Fixtures.actor
        ).cart
    }
}

/// A subscriber that refuses changes inside the transaction, like a failing audit write: every change, or with
/// `customer` only the changes to that customer's orders.
/// Counts how often changes are announced inside a transaction: a change whose transaction is rolled back and run
/// again is announced twice.
final class CountingSubscriber<Transaction: OrderTransaction>: OrderChangeWriter {
    let announced = Locked(0)
    func repository(willCommit change: OrderChange, in transaction: Transaction) throws {
        announced.withLock { $0 += 1 }
    }
}

final class RefusingSubscriber<Transaction: OrderTransaction>: OrderChangeWriter {
    struct Refused: Error {}
    let customer: String?
    init(customer: String? = nil) { self.customer = customer }
    func repository(willCommit change: OrderChange, in transaction: Transaction) throws {
        if customer == nil || change.after.customer == customer { throw Refused() }
    }
}
