import Foundation
import PizzaTesting
import Testing

/// Hostile clients of the order API, on plain HTTP over loopback so that the bytes are the test's own: each gets a
/// clear answer or a closed connection, nothing is half-written, and the control socket does not notice.
@Suite("Order API against hostile clients", .serialized)
struct OrderAPIHostileTests {
    /// A pizzad with the API on a free loopback port (plain HTTP), and a till's token.
    static func start(_ extra: String = "") throws -> (PizzadProcess, port: Int, token: String) {
        let port = try freeLoopbackPort()
        let daemon = try PizzadProcess(config: "api:\n  listen: 127.0.0.1:\(port)\n\(extra)")
        let added = try daemon.pizzactl(["device", "add", "till-1", "--role", "till"])
        guard added.status == 0, let token = added.stdout.split(separator: "\n").last else {
            throw HarnessError("device add: \(added)")
        }
        return (daemon, port, String(token))
    }

    /// The control socket still answers at once, and the database holds `orders` orders.
    func expectUnharmed(_ daemon: PizzadProcess, orders: Int) throws {
        let status = try daemon.pizzactl(["status"])
        #expect(status.status == 0, "\(status)")
        let count = try run("sqlite3", [daemon.database, "SELECT count(*) FROM carts"])
        #expect(count.stdout == "\(orders)\n")
        #expect(try daemon.pizzactl(["audit", "verify"]).status == 0)
        #expect(daemon.isRunning)
    }

    @Test("a request with both Content-Length and Transfer-Encoding is refused, not read two ways; nothing is written")
    func smuggling() throws {
        let (daemon, port, token) = try Self.start()
        let body = #"{"items":[{"kind":"cheese"}]}"#
        let connection = try HTTPConnection(port: port)
        try connection.send(
            "POST /v1/orders HTTP/1.1\r\nHost: pizzad\r\nAuthorization: Bearer \(token)\r\nIdempotency-Key: s1\r\n"
                + "Content-Length: \(body.utf8.count)\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\n\r\nPOST /v1/orders HTTP/1.1\r\nHost: pizzad\r\nAuthorization: Bearer \(token)\r\n"
                + "Idempotency-Key: s2\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let (text, closed) = connection.readUntilClosed(timeout: 5)
        #expect(closed || text.hasPrefix("HTTP/1.1 400"), "\(text)")
        #expect(!text.contains("201 Created"), "\(text)")
        try expectUnharmed(daemon, orders: 0)
    }

    @Test("malformed request lines and headers over 16 KiB: 400 or 431, or the connection closed")
    func malformed() throws {
        let (daemon, port, token) = try Self.start()
        for request in [
            "GARBAGE\r\n\r\n", "GET /v1/menu HTTP/9.9\r\n\r\n", "GET /v1/menu HTTP/1.1\r\nHost pizzad\r\n\r\n",
            "GET /v1/menu HTTP/1.1\r\nHost: pizzad\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n",
            "POST /v1/orders HTTP/1.1\r\nHost: pizzad\r\nAuthorization: Bearer \(token)\r\nIdempotency-Key: z\r\n"
                + "Content-Length: 99999999\r\n\r\n{",
        ] {
            let connection = try HTTPConnection(port: port)
            try? connection.send(request)
            let (text, closed) = connection.readUntilClosed(timeout: 5)
            let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
            #expect(closed || (400..<500).contains(status), "\(request.prefix(60)): \(text.prefix(200))")
        }
        try expectUnharmed(daemon, orders: 0)
    }

    @Test("a slowloris client dribbling its headers is cut off within the header deadline")
    func slowloris() throws {
        let (daemon, port, _) = try Self.start("  idleTimeoutSeconds: 20\n")
        let connection = try HTTPConnection(port: port)
        try connection.send("GET /v1/menu HTTP/1.1\r\nHost: pizzad\r\n")
        let clock = Stopwatch()
        var closed = false
        for index in 0..<10 where !closed {
            usleep(700_000)
            do {
                try connection.send("X-Drip-\(index): a\r\n")
            } catch {
                closed = true
            }
            let (_, gone) = connection.readUntilClosed(timeout: 0.05)
            closed = closed || gone
        }
        #expect(closed, "still open after \(clock.seconds) s of dripping")
        #expect(clock.seconds < 6, "the deadline is a tenth of api.idleTimeoutSeconds, 2 s")
        try expectUnharmed(daemon, orders: 0)
    }

    @Test("1,000 idle connections: the API still answers a till, and the control socket is unaffected")
    func idleConnections() throws {
        let (daemon, port, token) = try Self.start()
        let held = try HeldConnections(port: port, count: 1000)
        defer { held.release() }
        let connection = try HTTPConnection(port: port)
        try connection.send(
            "POST /v1/orders HTTP/1.1\r\nHost: pizzad\r\nAuthorization: Bearer \(token)\r\nIdempotency-Key: idle\r\n"
                + "Content-Length: 29\r\n\r\n{\"items\":[{\"kind\":\"cheese\"}]}")
        let response = try connection.readResponse()
        #expect(response.status == 201, "\(response)")
        try expectUnharmed(daemon, orders: 1)
    }

    @Test("brute-forcing tokens locks the address out with 429 and Retry-After")
    func bruteForce() throws {
        let (daemon, port, token) = try Self.start()
        let connection = try HTTPConnection(port: port)
        var statuses: [Int] = []
        for attempt in 0..<12 {
            try connection.send(
                "GET /v1/menu HTTP/1.1\r\nHost: pizzad\r\nAuthorization: Bearer pzd_guess\(attempt)\r\n\r\n")
            statuses.append(try connection.readResponse().status)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 } && statuses.last == 429, "\(statuses)")
        try connection.send("GET /v1/menu HTTP/1.1\r\nHost: pizzad\r\nAuthorization: Bearer \(token)\r\n\r\n")
        let locked = try connection.readResponse()
        #expect(locked.status == 429 && (Int(locked.headers["retry-after"] ?? "") ?? 0) > 0, "\(locked)")
        #expect(daemon.output.contains("locked out an address"))
        try expectUnharmed(daemon, orders: 0)
    }

    @Test("a body that is valid JSON but not an order: 400 validation, nothing half-written")
    func notAnOrder() throws {
        let (daemon, port, token) = try Self.start()
        for (index, body) in [#"{"items":"pizza"}"#, #"[{"kind":"cheese"}]"#, #"{"items":[{"kind":null}]}"#, "42"]
            .enumerated()
        {
            let connection = try HTTPConnection(port: port)
            try connection.send(
                "POST /v1/orders HTTP/1.1\r\nHost: pizzad\r\nAuthorization: Bearer \(token)\r\n"
                    + "Idempotency-Key: bad-\(index)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try connection.readResponse()
            #expect(response.status == 400 && response.body.contains("urn:pizzad:problem:validation"), "\(response)")
        }
        try expectUnharmed(daemon, orders: 0)
    }
}
