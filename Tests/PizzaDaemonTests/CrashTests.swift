import DaemonHarness
import Foundation
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

@Suite("Crashes: kill -9 under load", .serialized, .offThePool)
struct CrashTests {
    @Test("SIGKILL at random moments under load: every acknowledged order and transition survives, the files are clean")
    func killLoop() async throws {
        let directoryFolder = try TemporaryFolder("pizzad-crash")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        // What the daemon acknowledged: order id → the status it last confirmed.
        let acknowledged = Locked<[Int64: String]>([:])
        for round in 0..<3 {
            let daemon = try PizzadProcess(directory: directory)
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for client in 0..<6 {
                        group.addTask {
                            _ = try? await ControlClient.withConnection(socket: daemon.socket) { connection in
                                for order in 0..<100_000 {
                                    let created = try await connection.call(
                                        "order.create",
                                        [
                                            ("ref", .string("r\(round)-c\(client)-\(order)")),
                                            ("items", [["kind": "cheese"]]),
                                            ("place", true),
                                        ])
                                    guard let id = created["id"]?.intValue else { continue }
                                    acknowledged.withLock { $0[id] = "placed" }
                                    let advanced = try await connection.call("order.advance", [("id", .int(id))])
                                    if let status = advanced["status"]?.stringValue {
                                        acknowledged.withLock { $0[id] = status }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            // Kill at a random moment once this round has made some orders (a slow build may take a while).
            let before = acknowledged.value.count
            let deadline = ContinuousClock.now + .seconds(20)
            while acknowledged.value.count < before + 5, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...500)))
            #expect(try daemon.stop(SIGKILL) == -9)
            await load.value
        }
        let acknowledgedNow = acknowledged.value
        #expect(!acknowledgedNow.isEmpty, "the load should have made orders between the kills")
        // Restart on the same files: everything acknowledged is there, in at least the acknowledged status.
        let daemon = try PizzadProcess(directory: directory)
        let rows = try sqlite3(daemon.database, "SELECT id, status FROM carts").split(separator: "\n")
        var stored: [Int64: String] = [:]
        for row in rows {
            let parts = row.split(separator: "|")
            if parts.count == 2, let id = Int64(parts[0]) { stored[id] = String(parts[1]) }
        }
        let order = ["open", "placed", "preparing", "baking", "boxed", "shipped", "delivered"]
        for (id, status) in acknowledgedNow {
            let actual = try #require(stored[id], "acknowledged order \(id) is missing")
            #expect(
                (order.firstIndex(of: actual) ?? -1) >= (order.firstIndex(of: status) ?? 99),
                "order \(id): \(actual) < \(status)")
        }
        // Nothing half there: every order has its pizzas, its history and its audit entries.
        #expect(
            try sqlite3(daemon.database, "SELECT count(*) FROM carts WHERE id NOT IN (SELECT cart_id FROM pizzas)")
                == "0")
        #expect(
            try sqlite3(daemon.database, "SELECT count(*) FROM carts WHERE id NOT IN (SELECT order_id FROM audit_log)")
                == "0")
        #expect(try sqlite3(daemon.database, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite3(daemon.database, "PRAGMA foreign_key_check") == "")
        let verify = try daemon.pizzactl(["audit", "verify"])
        #expect(verify.status == 0, "\(verify)")
    }
}
