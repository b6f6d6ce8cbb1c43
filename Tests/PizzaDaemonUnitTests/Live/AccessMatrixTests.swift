import DaemonHarness
import Foundation
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

@Suite("Access matrix with real users", .serialized, .offThePool)
struct AccessMatrixTests {
    /// pizzactl commands covering every method, and whether each changes something (operators only).
    /// pizzactl commands covering every method, whether each changes something (operators only), and the exit
    /// status of each for a user allowed to run it.
    static let commands: [(arguments: [String], changes: Bool, allowedStatus: Int32)] = [
        (["status"], false, 0), (["menu"], false, 0), (["order", "show", "1"], false, 0),
        (["order", "list"], false, 0), (["audit", "list"], false, 0), (["audit", "verify"], false, 0),
        (["metrics"], false, 0), (["db", "check"], false, 0), (["replication", "status"], false, 0),
        // Allowed, and answered: replication is off here, a validation error (exit 1), not a refusal (4).
        (["replication", "verify"], false, 1),
        (["order", "new", "cheese"], true, 0), (["order", "add", "1", "chicken"], true, 0),
        (["order", "remove", "1", "1"], true, 0),
        (["order", "place", "1"], true, 0), (["order", "advance", "1"], true, 0),
        (["order", "cancel", "1", "--reason", "test"], true, 0),
        (["db", "backup", "/tmp/pizzad-matrix-backup-UNIQUE.sqlite"], true, 0),
    ]

    @Test("root, an operator, a reader and an outsider against every method", .enabled(if: getuid() == 0))
    func matrix() throws {
        let suffix = String(UInt32.random(in: 0...999_999))
        let users = ["op\(suffix)", "rd\(suffix)", "out\(suffix)"]
        for user in users {
            let created = try run("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
            try #require(created.status == 0, "\(created)")
        }
        defer { for user in users { _ = try? run("userdel", [user]) } }
        let daemon = try LiveDaemon(
            config: """
                socket:
                  mode: "0666"
                access:
                  operators: [\(users[0])]
                  readers: [\(users[1])]
                """)
        // Each user runs each command on a fresh order of their own, so the lifecycle commands have something to act on.
        for (user, role) in [("root", "operator"), (users[0], "operator"), (users[1], "reader"), (users[2], "none")] {
            try #require(daemon.pizzactl(["order", "new", "cheese", "chicken"]).status == 0)
            let id = try sqlite3(daemon.database, "SELECT max(id) FROM carts")
            let item = try sqlite3(daemon.database, "SELECT min(id) FROM pizzas WHERE cart_id = \(id)")
            for command in Self.commands {
                var arguments = command.arguments.map { $0 == "1" ? id : $0 }
                if arguments.first == "order", arguments.count == 4, arguments[1] == "remove" { arguments[3] = item }
                arguments = arguments.map {
                    $0.replacingOccurrences(of: "UNIQUE", with: "\(user)-\(UUID().uuidString.prefix(6))")
                }
                let result =
                    user == "root"
                    ? try daemon.pizzactl(arguments)
                    : try daemon.pizzactl(arguments, as: user, group: "nogroup")
                let allowed = role == "operator" || (role == "reader" && !command.changes)
                if allowed {
                    // Allowed and done: exit 0, not merely "not refused" (a crash or an internal error is not 4).
                    #expect(result.status == command.allowedStatus, "\(user) (\(role)) \(arguments): \(result)")
                    #expect(!result.stderr.contains("permission_denied"), "\(user) \(arguments)")
                } else {
                    #expect(result.status == 4, "\(user) (\(role)) \(arguments): \(result)")
                    #expect(result.stderr.contains("permission_denied"), "\(user) \(arguments)")
                }
            }
        }
        // Who did what is on record with the right names.
        let actors = Set(
            try sqlite3(daemon.database, "SELECT DISTINCT actor_name FROM audit_log").split(separator: "\n").map(
                String.init))
        #expect(actors.contains(users[0]))
        #expect(!actors.contains(users[1]) && !actors.contains(users[2]))
        // The files after start: socket as configured, database not world-writable.
        var info = stat()
        stat(daemon.socket, &info)
        #expect(info.st_mode & 0o777 == 0o666)
        stat(daemon.database, &info)
        #expect(info.st_mode & 0o002 == 0)
        _ = try? run("sh", ["-c", "rm -f /tmp/pizzad-matrix-backup-*.sqlite"])
    }

    @Test("db.backup under write load: the copy opens, is intact and holds every order acknowledged before it began")
    func backupUnderLoad() async throws {
        let daemon = try LiveDaemon()
        let before = Locked<Set<Int64>>([])
        let lastError = Locked<String?>(nil)
        let stop = Locked(false)
        let socket = daemon.socket
        // Four clients that keep ordering; a refused call or a lost connection (a busy machine) is noted and tried
        // again, so the load never ends unseen before the backup starts.
        let load = Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        var index = 0
                        while !stop.value {
                            do {
                                try await PizzaClient.ControlClient.withConnection(
                                    socket: socket, timeout: .seconds(60)
                                ) { connection in
                                    while !stop.value {
                                        let order = try await connection.call(
                                            "order.create",
                                            [
                                                ("ref", .string("b\(client)-\(index)")),
                                                ("items", [["kind": "cheese"]]),
                                            ])
                                        if let id = order["id"]?.intValue { before.withLock { _ = $0.insert(id) } }
                                        index += 1
                                    }
                                }
                            } catch {
                                lastError.withLock { $0 = "\(error)" }
                                try? await Task.sleep(for: .milliseconds(100))
                            }
                        }
                    }
                }
            }
        }
        // Let the load run until it has made some orders (the machine may be busy with other tests).
        let deadline = ContinuousClock.now + .seconds(90)
        while before.value.count < 20, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let acknowledgedBefore = before.value
        let target = daemon.directory + "/backup.sqlite"
        let backup = try daemon.pizzactl(["db", "backup", target])
        stop.withLock { $0 = true }
        await load.value
        #expect(backup.status == 0, "\(backup)")
        #expect(acknowledgedBefore.count > 10, "the load's last error: \(lastError.value ?? "none")")
        #expect(try sqlite3(target, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite3(target, "PRAGMA foreign_key_check") == "")
        let inCopy = Set(try sqlite3(target, "SELECT id FROM carts").split(separator: "\n").compactMap { Int64($0) })
        #expect(acknowledgedBefore.isSubset(of: inCopy), "missing: \(acknowledgedBefore.subtracting(inCopy).prefix(5))")
        // Restoring is opening the copy: a daemon on it serves and verifies its audit chain.
        let restoredFolder = try TemporaryFolder("pizzad-restored")
        defer { restoredFolder.remove() }
        let restored = restoredFolder.path
        try FileManager.default.copyItem(atPath: target, toPath: restored + "/pizzad.sqlite")
        let second = try LiveDaemon(directory: restored)
        #expect(try second.pizzactl(["audit", "verify"]).status == 0)
    }
}
