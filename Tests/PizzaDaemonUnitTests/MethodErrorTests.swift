import Foundation
import PizzaCore
import PizzaProtocol
import PizzaTesting
import Testing

/// The methods' own errors (CONTRACT section 5), in process: the daemon's dispatcher and methods over a real SQLite
/// file, the request and the answer as the socket carries them. The errors of the socket itself (parse errors,
/// invalid requests, overload, oversized lines, versions) and those of storage under another program's lock are in
/// PizzaDaemonTests' "Every error code on the socket", over a real pizzad.
@Suite("Every method's error, in process")
struct MethodErrorTests {
    let daemon: InProcessDaemon

    init() async throws { daemon = try await InProcessDaemon() }

    /// Creates an open order with one pizza; its id.
    func openOrder() async throws -> Int {
        let created = try await daemon.request(
            #"{"jsonrpc":"2.0","id":0,"method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#)
        return try #require(created.result?["id"] as? Int, "\(created)")
    }

    @Test("-32601 method not found")
    func methodNotFound() async throws {
        let response = try await daemon.request(#"{"jsonrpc":"2.0","id":1,"method":"order.eat"}"#)
        #expect(response.errorCode == -32601)
        #expect(response["id"] as? Int == 1)
        // The error lists the daemon's methods: exactly the two tables pizzactl names them from.
        let message = try #require((response["error"] as? [String: Any])?["message"] as? String)
        let listed = Set(
            try #require(message.split(separator: "methods: ").last).split(separator: ", ").map(String.init))
        let named = Set(RPCMethod.allCases.map(\.rawValue) + OrderOperation.allCases.map(\.rawValue))
        #expect(
            listed == named, "the daemon's and pizzactl's method names differ: \(listed.symmetricDifference(named))")
    }

    @Test("-32602 invalid params names the field")
    func invalidParams() async throws {
        let wrongType = try await daemon.request(
            #"{"jsonrpc":"2.0","id":1,"method":"order.get","params":{"id":"one"}}"#)
        #expect(wrongType.errorCode == -32602)
        #expect(wrongType.errorData?["field"] as? String == "id")
        let unknown = try await daemon.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.list","params":{"statsu":"open"}}"#)
        #expect(unknown.errorCode == -32602)
        #expect(unknown.errorData?["field"] as? String == "statsu")
    }

    @Test("1001 not_found")
    func notFound() async throws {
        let response = try await daemon.request(
            #"{"jsonrpc":"2.0","id":1,"method":"order.get","params":{"id":424242}}"#)
        #expect(response.errorCode == 1001)
    }

    @Test("1002 invalid_transition lists what is allowed")
    func invalidTransition() async throws {
        let id = try await openOrder()
        let response = try await daemon.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.advance","params":{"id":\#(id)}}"#)
        #expect(response.errorCode == 1002)
        #expect(response.errorData?["allowed"] as? [String] == ["place", "cancel"])
    }

    @Test("1003 conflict when advancing from a status the order left")
    func conflict() async throws {
        let created = try await daemon.request(
            #"{"jsonrpc":"2.0","id":1,"method":"order.create","params":{"items":[{"kind":"cheese"}],"place":true}}"#)
        let id = try #require(created.result?["id"] as? Int)
        let first = try await daemon.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.advance","params":{"id":\#(id),"from":"placed"}}"#)
        #expect(first.errorCode == nil)
        let second = try await daemon.request(
            #"{"jsonrpc":"2.0","id":3,"method":"order.advance","params":{"id":\#(id),"from":"placed"}}"#)
        #expect(second.errorCode == 1003)
    }

    @Test("1004 validation names the field and the allowed values")
    func validation() async throws {
        let response = try await daemon.request(
            #"{"jsonrpc":"2.0","id":1,"method":"order.create","params":{"items":[{"kind":"cheese"},{"kind":"cheese","crust":"glass"}]}}"#
        )
        #expect(response.errorCode == 1004)
        #expect(response.errorData?["field"] as? String == "items[1].crust")
        #expect(response.errorData?["allowed"] as? [String] == ["classic", "thin", "stuffed"])
    }

    @Test("1004 for a customer or note over 1000 characters, counted as characters, not bytes")
    func customerAndNoteLength() async throws {
        for field in ["customer", "note"] {
            let long = try await daemon.request(
                #"{"jsonrpc":"2.0","id":1,"method":"order.create","params":{"\#(field)":"\#(String(repeating: "a", count: 1001))"}}"#
            )
            #expect(long.errorCode == 1004, "\(long)")
            #expect(long.errorData?["field"] as? String == field)
            #expect(long.errorData?["allowed"] as? [String] == ["0..1000 characters"])
            // 1000 characters of two bytes each, and 1000 of one character made of two scalars: both allowed.
            for character in ["é", "e\u{301}"] {
                let text = String(repeating: character, count: 1000)
                let wide = try await daemon.request(
                    #"{"jsonrpc":"2.0","id":2,"method":"order.create","params":{"\#(field)":"\#(text)"}}"#)
                #expect(wide.errorCode == nil, "\(field) \(character.unicodeScalars.count) scalars: \(wide)")
            }
            let wideLong = try await daemon.request(
                #"{"jsonrpc":"2.0","id":3,"method":"order.create","params":{"\#(field)":"\#(String(repeating: "é", count: 1001))"}}"#
            )
            #expect(wideLong.errorCode == 1004, "\(wideLong)")
        }
    }

    @Test("events.watch checks its parameters like any method before it is acknowledged")
    func watchParameters() async throws {
        let frozen = try await daemon.request(
            #"{"jsonrpc":"2.0","id":1,"method":"events.watch","params":{"status":"frozen"}}"#)
        #expect(frozen.errorCode == 1004 && frozen.errorData?["field"] as? String == "status", "\(frozen)")
        let unknown = try await daemon.request(
            #"{"jsonrpc":"2.0","id":2,"method":"events.watch","params":{"since":1}}"#)
        #expect(unknown.errorCode == -32602, "\(unknown)")
        #expect(try await daemon.request(#"{"jsonrpc":"2.0","id":3,"method":"menu.list"}"#).errorCode == nil)
        let watching = try await daemon.request(
            #"{"jsonrpc":"2.0","id":4,"method":"events.watch","params":{"status":"placed","after":0}}"#)
        #expect(watching.result?["watching"] as? Bool == true, "\(watching)")
    }

    @Test("1004 for a ref outside 1..200 characters and a limit outside 1..1000, on every method that takes them")
    func refAndLimitBounds() async throws {
        for ref in ["", String(repeating: "r", count: 201)] {
            let response = try await daemon.request(
                #"{"jsonrpc":"2.0","id":1,"method":"order.create","params":{"ref":"\#(ref)"}}"#)
            #expect(response.errorCode == 1004, "\(response)")
            #expect(response.errorData?["field"] as? String == "ref")
            #expect(response.errorData?["allowed"] as? [String] == ["1..200 characters"])
        }
        let longest = try await daemon.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.create","params":{"ref":"\#(String(repeating: "r", count: 200))"}}"#
        )
        #expect(longest.errorCode == nil, "\(longest)")
        for method in ["order.list", "audit.list"] {
            for limit in [0, 1001, -1] {
                let response = try await daemon.request(
                    #"{"jsonrpc":"2.0","id":3,"method":"\#(method)","params":{"limit":\#(limit)}}"#)
                #expect(response.errorCode == 1004, "\(method) \(limit): \(response)")
                #expect(response.errorData?["field"] as? String == "limit")
                #expect(response.errorData?["allowed"] as? [String] == ["1..1000"])
            }
            #expect(
                try await daemon.request(
                    #"{"jsonrpc":"2.0","id":4,"method":"\#(method)","params":{"limit":1000}}"#
                ).errorCode == nil)
        }
    }

    @Test("1004 for a db.backup path that names a folder, or lies in a missing folder or under a file")
    func backupPaths() async throws {
        let folder = daemon.folder.path
        let cases: [(path: String, allowed: String)] = [
            (folder + "/", "a file's path"),
            (folder + "/missing/copy.sqlite", "a path in an existing folder"),
            (folder + "/pizzad.sqlite/copy.sqlite", "a path in an existing folder"),
        ]
        for (id, test) in cases.enumerated() {
            let response = try await daemon.request(
                #"{"jsonrpc":"2.0","id":\#(id),"method":"db.backup","params":{"path":"\#(test.path)"}}"#)
            #expect(response.errorCode == 1004, "\(test.path): \(response)")
            #expect(response.errorData?["field"] as? String == "path")
            #expect(response.errorData?["allowed"] as? [String] == [test.allowed], "\(test.path): \(response)")
        }
    }
}

/// Bad input to the shop's methods (CONTRACT sections 17-18): each a named error naming the field, nothing written.
@Suite("The shop's methods refuse bad input by name")
struct ShopMethodErrorTests {
    @Test(
        "menu.setAvailable and report.* with missing, mistyped, unknown or out-of-range parameters",
        arguments: [
            (#"{"method":"menu.setAvailable","params":{"available":false}}"#, -32602, "item"),
            (#"{"method":"menu.setAvailable","params":{"item":"olives"}}"#, -32602, "available"),
            (#"{"method":"menu.setAvailable","params":{"item":"olives","available":"no"}}"#, -32602, "available"),
            (#"{"method":"menu.setAvailable","params":{"item":"lemonade","available":false}}"#, 1004, "item"),
            (#"{"method":"menu.setAvailable","params":{"item":"olives","available":false,"x":1}}"#, -32602, "x"),
            (#"{"method":"report.get","params":{}}"#, -32602, "number"),
            (#"{"method":"report.get","params":{"number":"one"}}"#, -32602, "number"),
            (#"{"method":"report.get","params":{"number":7}}"#, 1001, "number"),
            (#"{"method":"report.verify","params":{"number":-1}}"#, 1001, "number"),
            (#"{"method":"report.list","params":{"limit":0}}"#, 1004, "limit"),
            (#"{"method":"report.z","params":{"ref":""}}"#, 1004, "ref"),
            (#"{"method":"report.z","params":{"ref":7}}"#, -32602, "ref"),
            (#"{"method":"report.x","params":{"print":"yes"}}"#, -32602, "print"),
        ])
    func refused(request: String, code: Int, field: String) async throws {
        let daemon = try await InProcessDaemon()
        let line = request.replacingOccurrences(of: #"{"method""#, with: #"{"jsonrpc":"2.0","id":1,"method""#)
        let response = try await daemon.request(line)
        #expect(response.errorCode == code, "\(line): \(response)")
        #expect(response.errorData?["field"] as? String == field, "\(line): \(response)")
        // Nothing was written: no Z, no item off.
        let verify = try await daemon.request(#"{"jsonrpc":"2.0","id":2,"method":"audit.verify"}"#)
        #expect(verify.result?["entries"] as? Int == 0, "\(verify)")
    }
}
