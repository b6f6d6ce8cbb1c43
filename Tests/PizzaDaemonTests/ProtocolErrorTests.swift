import DaemonHarness
import Foundation
import PizzaCore
import PizzaProtocol
import PizzaTesting
import Testing

@Suite("Every error code on the socket", .serialized, .offThePool)
struct ProtocolErrorTests {
    let daemon: PizzadProcess

    init() throws {
        // The limits these errors are about: 1007 overloaded past a cap of 4 connections (1,024 would need a
        // thousand), and 1005 busy after a 200 ms wait for a lock held by another program (5 s by default).
        daemon = try PizzadProcess(config: "socket:\n  maxConnections: 4\ndatabase:\n  busyTimeoutMs: 200\n")
    }

    func connection() throws -> RawConnection { try RawConnection(path: daemon.socket) }

    /// Creates an open order with one pizza on `connection`; its id.
    func openOrder(on connection: RawConnection) throws -> Int {
        let created = try connection.request(
            #"{"jsonrpc":"2.0","id":0,"method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#)
        return try #require(created.result?["id"] as? Int, "\(created)")
    }

    @Test("-32700 parse error")
    func parseError() throws {
        let response = try connection().request("{not json")
        #expect(response.errorCode == -32700)
        #expect(response["id"] is NSNull)
    }

    @Test("-32600 invalid request")
    func invalidRequest() throws {
        let connection = try connection()
        #expect(try connection.request(#"{"jsonrpc":"1.0","id":1,"method":"menu.list"}"#).errorCode == -32600)
        #expect(try connection.request(#"[1,2]"#).errorCode == -32600)
        #expect(try connection.request(#"{"jsonrpc":"2.0","id":2}"#).errorCode == -32600)
    }

    @Test("db.backup to a path another backup is writing: 1004 on path, naming it; one copy, whole")
    func backupsTogether() throws {
        let daemon = try PizzadProcess()
        // Enough orders that a backup takes a moment (one connection, sent in one go, then the answers read).
        let loader = try RawConnection(path: daemon.socket)
        let create = #"{"jsonrpc":"2.0","id":1,"method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#
        try loader.send(String(repeating: create + "\n", count: 1000))
        for _ in 0..<1000 { _ = try loader.readLine() }
        let target = daemon.directory + "/copy.sqlite"
        let connections = try (0..<6).map { _ in try RawConnection(path: daemon.socket) }
        for connection in connections {
            try connection.send(#"{"jsonrpc":"2.0","id":7,"method":"db.backup","params":{"path":"\#(target)"}}"# + "\n")
        }
        var written = 0
        var busy = 0
        for connection in connections {
            let line = try #require(try connection.readLine())
            let response = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if response.errorCode == nil {
                written += 1
                continue
            }
            #expect(response.errorCode == 1004, "\(response)")
            #expect(response.errorData?["field"] as? String == "path", "\(response)")
            let message = (response["error"] as? [String: Any])?["message"] as? String ?? ""
            if message.contains("is being written now") { busy += 1 }
        }
        #expect(written == 1)
        #expect(busy >= 1, "no backup overlapped another: the refusal was not exercised")
        #expect(try sqlite3(target, "SELECT count(*) FROM carts") == "1000")
        #expect(try daemon.pizzactl(["status"]).status == 0)
    }

    @Test("changes refused before the writer, sent in one go with changes that commit and reads, answer in order")
    func refusedAndCommittedChangesInOneGo() throws {
        let connection = try connection()
        let id = try openOrder(on: connection)
        // Refused by the repository before it queues them (a bad ref, `place` with no pizza), refused by the
        // writer's transaction (not found), committed, and read, back to back on one connection.
        let requests: [(method: String, params: String, code: Int?)] = [
            ("order.create", #"{"ref":""}"#, 1004),
            ("order.addItem", #"{"id":\#(id),"pizza":{"kind":"cheese"}}"#, nil),
            ("order.create", #"{"place":true}"#, 1004),
            ("order.get", #"{"id":\#(id)}"#, nil),
            ("order.place", #"{"id":424242}"#, 1001),
            ("order.place", #"{"id":\#(id)}"#, nil),
            ("order.create", #"{"ref":"\#(String(repeating: "r", count: 201))"}"#, 1004),
            ("order.get", #"{"id":\#(id)}"#, nil),
        ]
        var lines = ""
        for (index, request) in requests.enumerated() {
            lines +=
                #"{"jsonrpc":"2.0","id":\#(index + 1),"method":"\#(request.method)","params":\#(request.params)}"#
                + "\n"
        }
        try connection.send(lines)
        for (index, request) in requests.enumerated() {
            let line = try #require(try connection.readLine())
            let response = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(response["id"] as? Int == index + 1, "\(line)")
            #expect((response["error"] as? [String: Any])?["code"] as? Int == request.code, "\(request): \(line)")
        }
        let last = try connection.request(#"{"jsonrpc":"2.0","id":9,"method":"order.get","params":{"id":\#(id)}}"#)
        #expect(last.result?["status"] as? String == "placed", "\(last)")
        #expect((last.result?["items"] as? [Any])?.count == 2, "\(last)")
    }

    @Test("1006 storage while another program holds the write lock, then recovery")
    func storage() throws {
        // Someone left an sqlite3 shell with an open write transaction.
        let holder = try WriteLockHolder(database: daemon.database)
        let connection = try connection()
        let refused = try connection.request(
            #"{"jsonrpc":"2.0","id":1,"method":"order.create","params":{"customer":"locked out"}}"#)
        #expect(refused.errorCode == 1006, "\(refused)")
        // Reads go on.
        #expect(try connection.request(#"{"jsonrpc":"2.0","id":2,"method":"menu.list"}"#).errorCode == nil)
        try holder.release()
        let accepted = try connection.request(
            #"{"jsonrpc":"2.0","id":3,"method":"order.create","params":{"customer":"back"}}"#)
        #expect(accepted.errorCode == nil, "\(accepted)")
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM carts WHERE customer = 'locked out'") == "0")
    }

    @Test("1007 overloaded past socket.maxConnections")
    func overloaded() throws {
        // The four of the limit are served and a fifth is refused. A connection closed just before (the harness's
        // readiness probe, a round before) can still be counted for a moment under a loaded machine: then the round
        // is done again from no connection, at most three times; the property is each round's, never loosened.
        for round in 1...3 {
            let probe = try connection()
            var open = 0
            for _ in 0..<1000 {
                let status = try probe.request(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#)
                open = status.result?["connections"] as? Int ?? -1
                if open == 1 { break }
                usleep(10_000)
            }
            try #require(open == 1, "pizzad still counts \(open) connections open; the test needs only its probe")
            let held = try [probe] + (0..<3).map { _ in try connection() }
            let served = try held.map { try $0.request(#"{"jsonrpc":"2.0","id":1,"method":"menu.list"}"#) }
            if served.contains(where: { $0.errorCode != nil }), round < 3 { continue }
            for (index, answer) in served.enumerated() {
                #expect(answer.errorCode == nil, "connection \(index + 1) of the limit of 4: \(answer)")
            }
            let extra = try connection()
            let line = try #require(try extra.readLine())
            #expect(line.contains("1007"), "\(line)")
            #expect(try extra.readLine() == nil, "the connection is closed")
            _ = held
            return
        }
    }

    @Test("1008 unsupported_version for another protocol major")
    func unsupportedVersion() throws {
        let connection = try connection()
        let response = try connection.request(
            #"{"jsonrpc":"2.0","id":1,"method":"daemon.hello","params":{"client":"future","protocol":"2.0"}}"#)
        #expect(response.errorCode == 1008)
        let ok = try connection.request(
            #"{"jsonrpc":"2.0","id":2,"method":"daemon.hello","params":{"client":"t","protocol":"1.7"}}"#)
        #expect(ok.result?["protocol"] as? String == "1.0")
    }

    @Test("a line over 1 MiB gets an error and the connection is closed; others carry on")
    func overlongLine() throws {
        let connection = try connection()
        let bystander = try self.connection()
        try connection.send(String(repeating: "x", count: (1 << 20) + 10))
        let line = try #require(try connection.readLine())
        #expect(line.contains("-32600"))
        #expect(try connection.readLine() == nil)
        #expect(try bystander.request(#"{"jsonrpc":"2.0","id":1,"method":"menu.list"}"#).errorCode == nil)
    }
}

@Suite("Access by peer credentials", .serialized, .offThePool)
struct AccessTests {
    @Test("a user in neither list gets permission_denied and exit code 4; readers read but may not change")
    func nobody() throws {
        let daemon = try PizzadProcess(
            config: """
                socket:
                  group: nogroup
                access:
                  readers: ["@nogroup"]
                """)
        // nobody (group nogroup) may read...
        let status = try daemon.pizzactl(["status"], as: "nobody", group: "nogroup")
        #expect(status.status == 0, "\(status)")
        // ...but not change.
        let denied = try daemon.pizzactl(["order", "new", "cheese"], as: "nobody", group: "nogroup")
        #expect(denied.status == 4, "\(denied)")
        #expect(denied.stderr.contains("permission_denied"))
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM carts") == "0")
        // The socket file is 0660 and belongs to the configured group.
        var info = stat()
        stat(daemon.socket, &info)
        #expect(info.st_mode & 0o777 == 0o660)
    }

    @Test("a user outside the lists is denied even reads")
    func outsider() throws {
        let daemon = try PizzadProcess(config: "socket:\n  group: nogroup\n")
        let denied = try daemon.pizzactl(["order", "list"], as: "nobody", group: "nogroup")
        #expect(denied.status == 4, "\(denied)")
        #expect(denied.stderr.contains("permission_denied"))
    }

    @Test("a user who cannot open the socket file is told so, exit 4")
    func socketPermissions() throws {
        let daemon = try PizzadProcess()
        let denied = try daemon.pizzactl(["status"], as: "nobody", group: "nogroup")
        #expect(denied.status == 4, "\(denied)")
        #expect(denied.stderr.contains("no permission to open"))
    }

    @Test("the audit entry records the uid, name and pid of the operator")
    func auditRecordsActor() throws {
        let daemon = try PizzadProcess(config: "socket:\n  group: nogroup\naccess:\n  operators: [nobody]\n")
        let created = try daemon.pizzactl(["order", "new", "cheese"], as: "nobody", group: "nogroup")
        #expect(created.status == 0, "\(created)")
        let row = try sqlite3(daemon.database, "SELECT actor_uid, actor_name FROM audit_log")
        #expect(row == "65534|nobody")
    }
}
