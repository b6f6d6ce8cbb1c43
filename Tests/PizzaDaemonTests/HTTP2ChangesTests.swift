import DaemonHarness
import Foundation
import PizzaTesting
import Testing

/// Orders over HTTP/2 as clients send them and as they go wrong, against a live pizzad over TLS: the changes answered
/// from the connection's frames (`StreamChangesOnLoop`) and the requests the router answers, on one connection
/// (Tests/PizzaDaemonTests/Hostile/h2changes.py, with PyPI's h2).
@Suite("Order API: changes over HTTP/2")
struct HTTP2ChangesTests {
    static let script = Binaries.repository + "/Tests/PizzaDaemonTests/Hostile/h2changes.py"

    @Test(
        "orders whole, in pieces, with trailers, fifty at once, refused, reset, stalled, at the window's edge: each answered once",
        .enabled(if: HostileClientTests.installed, "h2 is not installed in .cache/h2 (.ci/run installs it)"))
    func changes() async throws {
        let shop = try OrderAPILiveTests.start()
        defer { shop.folder.remove() }
        let till = try #require(shop.tokens["till"])
        let result = try run(HostileClientTests.python, [Self.script, String(shop.port), till], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        print("h2changes: \(result.stdout)")
        #expect(report["order"] as? Int == 201, "\(report)")
        #expect(report["replaySame"] as? Bool == true, "a replay over HTTP/2 is the first answer: \(report)")
        #expect(report["menu"] as? Int == 200, "\(report)")
        #expect(report["pieces"] as? Int == 201 && report["trailers"] as? Int == 201, "\(report)")
        #expect(report["body65535"] as? Int == 201 && report["body65536"] as? Int == 201, "\(report)")
        #expect(report["many"] as? [Int] == [201], "fifty orders at once on one connection: \(report)")
        #expect(report["badBody"] as? Int == 400 && report["noKey"] as? Int == 400, "\(report)")
        #expect(report["afterReset"] as? Int == 200, "\(report)")
        #expect(report["stalledReset"] as? Bool == true, "a stalled body is reset: \(report)")
        let stalled = report["stalledSeconds"] as? Double ?? 0
        #expect(stalled >= 9 && stalled < 21, "reset after \(stalled) s: the body deadline is 10 s")
        #expect(report["afterStalled"] as? Int == 201 && report["closed"] as? Bool == false, "\(report)")
        // One order, in pieces, with trailers, the two sizes, fifty, after the stall: 56; the reset and the stalled
        // changes wrote nothing, the replay and the refusals neither.
        #expect(try sqlite3(shop.daemon.database, "SELECT count(*) FROM carts") == "56")
        #expect(try sqlite3(shop.daemon.database, "SELECT count(*) FROM audit_log WHERE action = 'created'") == "56")
        _ = try shop.daemon.stop()
    }
}
