import DaemonHarness
import Foundation
import PizzaCore
import PizzaTesting
import Testing

/// The hostile clients of issue 79 against a live pizzad serving the order API over TLS, while a till orders over
/// HTTP/1.1: each attack ends on the attacker's connection, pizzad never exits, its memory stays bounded, and every
/// order the till was answered for is committed exactly once. How the till's latency fares is `pizzabench`'s to say.
@Suite("Hostile clients while a till orders", .serialized, .offThePool)
struct HostileClientTests {
    static let python = Binaries.repository + "/.cache/h2/bin/python"
    static let flood = Binaries.repository + "/Tests/PizzaDaemonTests/Hostile/h2flood.py"
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: python) }

    /// A pizzad's resident memory, from /proc.
    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test(
        "HTTP/2: rapid reset, CONTINUATION, SETTINGS and PING floods, too many streams, a 1 MiB header list",
        .enabled(if: installed, "h2 is not installed in .cache/h2 (.ci/run installs it)"))
    func http2Floods() async throws {
        let shop = try OrderAPILiveTests.start()
        defer { shop.folder.remove() }
        let till = try #require(shop.tokens["till"])
        // The attacker holds a valid token of its own (a reader's): its requests count against its own rate.
        let attacker = try #require(shop.tokens["reader"])
        let before = Self.residentKiB(shop.daemon.pid)
        // The till orders over HTTP/1.1 all along, each order with its own Idempotency-Key.
        let stop = Locked(false)
        let answered = Locked<[Int]>([])
        let ordering = Task.detached {
            var index = 0
            while !stop.withLock({ $0 }) {
                index += 1
                let answer = try OrderAPILiveTests.curl(
                    shop.port, "/v1/orders", token: till, cert: shop.cert, method: "POST",
                    body: #"{"items":[{"kind":"cheese"}],"place":true}"#, key: "till-\(index)", extra: ["--http1.1"])
                answered.withLock { $0.append(answer.status) }
            }
        }
        for attack in ["rapid_reset", "continuation", "settings", "ping", "streams", "headers"] {
            let result = try run(
                Self.python, [Self.flood, String(shop.port), attacker, attack], timeout: 120)
            #expect(result.status == 0, "\(attack): \(result)")
            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
            #expect(report["closedByServer"] as? Bool == true, "\(attack): the server kept the connection: \(report)")
            #expect(shop.daemon.isRunning, "pizzad exited under \(attack)")
            // And right after it, whatever the loop managed meanwhile: the till is served.
            let after = try OrderAPILiveTests.curl(
                shop.port, "/v1/orders", token: till, cert: shop.cert, method: "POST",
                body: #"{"items":[{"kind":"cheese"}],"place":true}"#, key: "after-\(attack)", extra: ["--http1.1"])
            answered.withLock { $0.append(after.status) }
        }
        stop.withLock { $0 = true }
        try await ordering.value
        let statuses = answered.withLock { $0 }
        #expect(statuses.count >= 6 && statuses.allSatisfy { $0 == 201 }, "the till's answers: \(statuses)")
        let committed = try sqlite3(shop.daemon.database, "SELECT count(*) FROM carts")
        #expect(Int(committed) == statuses.count, "every order answered 201 committed exactly once")
        let after = Self.residentKiB(shop.daemon.pid)
        #expect(after - before < 100_000, "pizzad's memory grew from \(before) KiB to \(after) KiB")
        _ = try shop.daemon.stop()
    }
}

extension HostileClientTests {
    @Test("HTTP/1.1: a trap header, 1,100 idle connections, slowloris, wrong tokens, hostile text, while a till orders")
    func http1Attacks() async throws {
        // The connection flood needs more descriptors than a shell's default 1,024.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = min(limit.rlim_max, 8192)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let shop = try OrderAPILiveTests.start()
        defer { shop.folder.remove() }
        let till = try #require(shop.tokens["till"])
        var statuses: [Int] = []
        func order(_ key: String) throws {
            let answer = try OrderAPILiveTests.curl(
                shop.port, "/v1/orders", token: till, cert: shop.cert, method: "POST",
                body: #"{"items":[{"kind":"cheese"}],"place":true}"#, key: key, extra: ["--http1.1"])
            statuses.append(answer.status)
        }
        try order("before")
        // A signed request's timestamp at Int64's edge (the trap of issue 79): 401, pizzad up.
        let trap = try run(
            "curl",
            [
                "-sk", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(shop.port)/v1/menu", "-H",
                "webhook-id: x", "-H", "webhook-timestamp: -9223372036854775808", "-H", "webhook-signature: v1,AA",
            ])
        #expect(trap.stdout == "401", "\(trap)")
        try order("after-trap")
        // 1,100 idle connections from another address: pizzad keeps a few (api.maxUnansweredPerAddress), the till is
        // served meanwhile.
        // Held by a helper process: this one spawns curl meanwhile, and Foundation's Process.run() over-reads
        // /proc/self/fd past some 1,360 descriptors (HeldConnections says why).
        let held = try HeldConnections(port: shop.port, count: 1100, from: "127.0.0.2")
        #expect(held.connected > 64, "the flood could not even connect: \(held.connected)")
        try order("during-flood")
        try await Task.sleep(for: .milliseconds(500))
        let open = try LoopbackTCP.established(to: shop.port, from: "127.0.0.2")
        #expect(open <= 64, "\(open) of 1,100 idle connections from one address still open")
        held.release()
        // Slowloris from a third address: heads a byte at a time.
        let slow = (0..<20).compactMap { _ in LoopbackTCP.connect(port: shop.port, from: "127.0.0.3") }
        for fd in slow { _ = send(fd, "\u{16}", 1, Int32(MSG_NOSIGNAL)) }  // a TLS record's first byte, and no more
        try order("during-slowloris")
        slow.forEach { close($0) }
        // Wrong tokens, fifty of them, different each time: that address is locked out, the till is not.
        for attempt in 0..<50 {
            _ = try OrderAPILiveTests.curl(shop.port, "/v1/menu", token: "pzd_wrong-\(attempt)", cert: shop.cert)
        }
        try order("after-lockout")
        // Text that would drive a terminal or a printer: refused by name, nothing written.
        let hostile = try OrderAPILiveTests.curl(
            shop.port, "/v1/orders", token: till, cert: shop.cert, method: "POST",
            body: #"{"customer":"\u001b[2J\u001b]0;owned\u0007","items":[{"kind":"cheese"}]}"#, key: "hostile",
            extra: ["--http1.1"])
        #expect(hostile.status == 400 && hostile.body.contains("customer"), "\(hostile)")
        try order("last")
        #expect(shop.daemon.isRunning, "pizzad exited")
        #expect(statuses == Array(repeating: 201, count: statuses.count), "the till's answers: \(statuses)")
        let committed = try sqlite3(shop.daemon.database, "SELECT count(*) FROM carts")
        #expect(Int(committed) == statuses.count, "every order answered 201 committed exactly once")
        _ = try shop.daemon.stop()
    }
}
