import DaemonHarness
import Foundation
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Synchronization
import Testing

/// The daemon under bad input and load, in the test's process (the signals' part stays with a process of its own,
/// in PizzaDaemonTests' RobustnessTests).
@Suite("The daemon under bad input and load", .serialized, .offThePool)
struct BadInputAndLoadTests {
    @Test("200 malformed lines of different kinds leave the daemon serving every connection")
    func malformedLines() throws {
        let daemon = try LiveDaemon()
        let bystander = try RawConnection(path: daemon.socket)
        let kinds: [String] = [
            "{", "}", "[]", "null", "42", "\"text\"", "{\"jsonrpc\":\"2.0\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"menu.list\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"order.create\",\"params\":[1]}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"order.create\",\"params\":{\"items\":\"many\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"order.create\",\"params\":{\"items\":[{\"kind\":5}]}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"order.create\",\"params\":{\"items\":[{\"kind\":\"cheese\",\"quantity\":1e400}]}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"order.get\",\"params\":{\"id\":99999999999999999999999}}",
            String(repeating: "[", count: 5000), "\u{00}\u{01}\u{02}", "{\"a\":\"\\ud800\"}", "\u{FEFF}{}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"order.advance\",\"params\":{\"id\":1,\"from\":\"eaten\"}}",
            // Once a crash: more than three digits of fraction in a time.
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"order.list\",\"params\":{\"since\":\"2026-11-21T09:30:00.123456789Z\"}}",
        ]
        let connection = try RawConnection(path: daemon.socket)
        var answered = 0
        for index in 0..<200 {
            var line = kinds[index % kinds.count]
            if index % 7 == 3 { line = String(line.shuffled()) }
            if line.contains("\n") { line = line.replacingOccurrences(of: "\n", with: " ") }
            try connection.send(line + "\n")
            guard let response = try connection.readLine() else { break }
            answered += 1
            let object = try JSONSerialization.jsonObject(with: Data(response.utf8)) as? [String: Any]
            #expect(object?["jsonrpc"] as? String == "2.0", "\(line) → \(response)")
        }
        #expect(answered == 200)
        #expect(try connection.request(#"{"jsonrpc":"2.0","id":"ok","method":"menu.list"}"#).errorCode == nil)
        #expect(try bystander.request(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#).errorCode == nil)
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
    }

    @Test("50 concurrent clients create orders; every acknowledged order is in the database")
    func concurrentClients() async throws {
        let daemon = try LiveDaemon()
        let acknowledged = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for client in 0..<50 {
                group.addTask {
                    try await ControlClient.withConnection(socket: daemon.socket) { connection in
                        var ids: [Int64] = []
                        for order in 0..<4 {
                            let result = try await connection.call(
                                "order.create",
                                [
                                    ("customer", .string("client \(client)")), ("ref", .string("c\(client)-o\(order)")),
                                    ("items", [["kind": "cheese"], ["kind": "chicken", "size": "L"]]),
                                ])
                            ids.append(try #require(result["id"]?.intValue))
                        }
                        return ids
                    }
                }
            }
            var all: [Int64] = []
            for try await ids in group { all += ids }
            return all
        }
        #expect(acknowledged.count == 200)
        #expect(Set(acknowledged).count == 200)
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM carts") == "200")
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM pizzas") == "400")
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM audit_log") == "200")
        #expect(try daemon.pizzactl(["audit", "verify"]).status == 0)
    }

    @Test("promtool accepts the output of pizzactl metrics", .enabled(if: Binaries.available("promtool")))
    func promtool() throws {
        let daemon = try LiveDaemon()
        try #require(daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        _ = try daemon.pizzactl(["order", "advance", "99"])
        let metrics = try daemon.pizzactl(["metrics"])
        let check = try run("promtool", ["check", "metrics"], input: metrics.stdout)
        #expect(check.status == 0, "\(check)")
    }
}

/// A start refused for its configuration or its database, in the test's process: the exit code and the one line.
@Suite("Start-up refusals", .serialized, .offThePool)
struct StartRefusalTests {
    @Test(
        "a bad configuration stops start-up with one line naming file, key and what is allowed",
        arguments: [
            ("log:\n  level: loud\n", "key 'log.level': 'loud' is not allowed; allowed: trace, debug"),
            ("log:\n  levle: info\n", "key 'log.levle': unknown key; allowed: level"),
            ("socket:\n  maxConnections: many\n", "key 'socket.maxConnections': 'many' is not a whole number"),
            (
                "menu:\n  kinds:\n    hawaii:\n      prices: {L: 1200}\n      crust: glass\n",
                "key 'menu.kinds.hawaii.crust'"
            ),
            ("database: [\n", "is not valid YAML"),
        ])
    func badConfiguration(_ yaml: String, _ expected: String) throws {
        let daemon = try LiveDaemon(config: yaml, wait: false)
        let status = try daemon.waitForExit()
        #expect(status == 78)
        let lines = daemon.output.split(separator: "\n")
        #expect(lines.count == 1, "\(daemon.output)")
        #expect(daemon.output.contains(daemon.directory + "/pizzad.yaml"))
        #expect(daemon.output.contains(expected), "\(daemon.output)")
    }

    @Test("a file that is not a pizzad database is refused and left untouched")
    func foreignDatabase() throws {
        let directoryFolder = try TemporaryFolder("pizzad-it")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        _ = try sqlite3(directory + "/pizzad.sqlite", "CREATE TABLE photos (id INTEGER PRIMARY KEY);")
        let before = try run("sha256sum", [directory + "/pizzad.sqlite"]).stdout
        let daemon = try LiveDaemon(directory: directory, wait: false)
        #expect(try daemon.waitForExit() == 65)
        #expect(daemon.output.contains("another program"))
        #expect(try run("sha256sum", [directory + "/pizzad.sqlite"]).stdout == before)
    }
}
