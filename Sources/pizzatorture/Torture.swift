import Foundation
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire
import SQLite

/// The full reliability run: the crash loop (load, a fault at a random moment, SIGKILL mostly and SIGTERM
/// sometimes, restart on the same files), then hostile clients beside legitimate ones, then a check that nothing
/// acknowledged was lost and nothing unacknowledged is half there.
enum Torture {
    struct Summary {
        var rounds = 0
        var requests = 0
        var faults = 0
        var acknowledged = 0
        var lost = 0
        var unexpectedExits = 0
        var hostile = Hostile.Summary()
        var problems: [String] = []
    }

    static let order = OrderChecks.statuses

    static func run(
        binary: String, directory: String, rounds: Int, clients: Int, hostileLines: Int
    ) async throws -> Summary {
        var summary = Summary()
        let acknowledged = Locked<[Int64: String]>([:])
        let requests = Locked<Int>(0)
        for round in 0..<rounds {
            let daemon = try PizzadProcess.bench(binary: binary, directory: directory)
            let socket = daemon.socket
            let load = Task.detached {
                await withTaskGroup(of: Void.self) { group in
                    for client in 0..<clients {
                        group.addTask {
                            _ = try? await ControlClient.withConnection(socket: socket, timeout: .seconds(5)) {
                                connection in
                                for index in 0..<1_000_000 {
                                    let created = try await connection.call(
                                        OrderOperation.create.rawValue,
                                        [
                                            ("ref", .string("t\(round)-\(client)-\(index)")),
                                            ("items", [["kind": "cheese"]]),
                                            ("place", true),
                                        ])
                                    requests.withLock { $0 += 1 }
                                    guard let id = created["id"]?.intValue else { continue }
                                    acknowledged.withLock { $0[id] = "placed" }
                                    let advanced = try await connection.call(
                                        OrderOperation.advance.rawValue, [("id", .int(id))])
                                    requests.withLock { $0 += 1 }
                                    if let status = advanced["status"]?.stringValue {
                                        acknowledged.withLock { $0[id] = status }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...1200)))
            if !daemon.process.isRunning { summary.unexpectedExits += 1 }
            let signal = round % 5 == 4 ? SIGTERM : SIGKILL
            kill(daemon.pid, signal)
            daemon.process.waitUntilExit()
            summary.faults += 1
            if signal == SIGTERM, daemon.process.terminationStatus != 0 {
                summary.problems.append("round \(round): SIGTERM gave exit \(daemon.process.terminationStatus)")
            }
            await load.value
            summary.rounds += 1
        }
        // Hostile clients on the files as the last fault left them, beside legitimate ones.
        if hostileLines > 0 {
            let daemon = try PizzadProcess.bench(
                binary: binary, directory: directory, config: "socket:\n  maxConnections: 2000\n")
            summary.hostile = try await Hostile.run(
                daemon: daemon, lines: hostileLines, connections: 50, idle: 1000, clients: clients,
                acknowledged: acknowledged, requests: requests)
            if !daemon.process.isRunning { summary.unexpectedExits += 1 }
            _ = try? daemon.stop()
            if daemon.process.terminationStatus != 0 {
                summary.problems.append(
                    "after the hostile clients, SIGTERM gave exit \(daemon.process.terminationStatus)")
            }
            let hostile = summary.hostile
            if hostile.survived != hostile.connections {
                summary.problems.append(
                    "\(hostile.connections - hostile.survived) hostile connections were not answered to the end")
            }
            if !hostile.silentClientHeldBack {
                summary.problems.append("the daemon kept reading from a client that never reads")
            }
            if hostile.served == 0 {
                summary.problems.append("no legitimate request was served beside the hostile clients")
            }
        }
        // The final check.
        let daemon = try PizzadProcess.bench(binary: binary, directory: directory)
        defer { _ = try? daemon.stop() }
        let db = try Database(path: daemon.database, mode: .readOnly)
        var stored: [Int64: String] = [:]
        try db.statement("SELECT id, status FROM carts").forEach { row in stored[row.int64(0)] = row.string(1) }
        let expected = acknowledged.value
        summary.acknowledged = expected.count
        for (id, status) in expected {
            guard let actual = stored[id], (order.firstIndex(of: actual) ?? -1) >= (order.firstIndex(of: status) ?? 99)
            else {
                summary.lost += 1
                continue
            }
        }
        summary.requests = requests.value
        for (check, sql) in [
            ("integrity_check", "PRAGMA integrity_check"), ("foreign_key_check", "PRAGMA foreign_key_check"),
        ] {
            let rows = try db.statement(sql).map { $0.string(0) }
            if rows != (check == "integrity_check" ? ["ok"] : []) {
                summary.problems.append("\(check): \(rows.prefix(3))")
            }
        }
        // Nothing half there: no order got past open without pizzas, and its status is the last one its history and
        // its audit entries name (audit.verify below checks the rest of the chain).
        for (what, sql) in OrderChecks.halfThere {
            let ids = try db.statement(sql).map { $0.int64(0) }
            if !ids.isEmpty { summary.problems.append("\(ids.count) orders \(what), e.g. \(ids.prefix(5))") }
        }
        let verify = try await ControlClient.withConnection(socket: daemon.socket) { try await $0.call(.auditVerify) }
        if verify["ok"]?.boolValue != true { summary.problems.append("audit.verify: \(verify.jsonText)") }
        return summary
    }
}
