import Foundation
import PizzaTesting

/// What the order API costs against the control socket, back to back in one run (`pizzabench api`): `POST
/// /v1/orders` over TLS with HTTP/1.1 from 16 keep-alive clients (wrk, a Lua script giving each order its own
/// `Idempotency-Key`), over HTTP/2 (``APIHTTP2``: 16 streams, each order its own key), with a new TLS connection
/// per order, a replayed key, and `order.create` from 16 socket clients as the baseline.
enum APIBench {
    /// A pizzad with the API on TLS, and a till's token.
    struct Shop {
        let daemon: PizzadProcess
        let port: Int
        let token: String
        let certificate: String
    }

    static func start(pizzad: String, directory: String) throws -> Shop {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = directory + "/api.pem"
        let key = directory + "/api.key"
        let made = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=pizzad", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        guard made.status == 0 else { throw BenchError("openssl req: \(made.output)") }
        let port = 20_000 + Int.random(in: 0..<20_000)
        let daemon = try PizzadProcess.bench(
            binary: pizzad, directory: directory,
            config: """
                api:
                  listen: 127.0.0.1:\(port)
                  requestsPerSecond: 100000
                  tls:
                    certificate: \(certificate)
                    key: \(key)
                """)
        let pizzactl = (pizzad as NSString).deletingLastPathComponent + "/pizzactl"
        let added = try ChildProcess.run(
            pizzactl, ["--socket", daemon.socket, "device", "add", "bench-till", "--role", "till"])
        guard added.status == 0, let token = added.output.split(separator: "\n").last else {
            throw BenchError("device add: \(added.output)")
        }
        return Shop(daemon: daemon, port: port, token: String(token), certificate: certificate)
    }

    /// A wrk run's figures.
    struct Run {
        var perSecond: Double
        var p50: String
        var p99: String
        var cpuPerOrder: Double
        var orders: Int
        /// wrk's own CPU (user and system) per request: on two cores it takes what pizzad does not get.
        var clientCPUPerRequest: Double
        /// Answers that were not 2xx (wrk's "Non-2xx or 3xx responses"): any makes the run's rate meaningless.
        var failed: Int
    }

    /// wrk's latency text (`850.00us`, `3.41ms`, `1.20s`) in milliseconds; nil when it is not one.
    static func milliseconds(_ text: String) -> Double? {
        for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }

    static let body = #"{"items":[{"kind":"chicken","size":"L"},{"kind":"cheese","quantity":2}],"place":true}"#

    /// wrk against `POST /v1/orders` with `connections`; `keys` names what the Lua script sends as the key.
    static func wrk(
        _ shop: Shop, connections: Int, seconds: Double, keys: String, close: Bool = false, work: String
    ) throws -> Run {
        let run = Int.random(in: 0..<1_000_000_000)
        let script = work + "/orders-\(keys)-\(run).lua"
        let keyExpression =
            keys == "unique" ? #"prefix .. "-" .. counter"# : #""replayed-key""#
        try """
        -- prefix is each thread's own global (thread:set), so no local may shadow it.
        local counter = 0
        local threads = 0
        prefix = "unset"
        function setup(thread)
          threads = threads + 1
          thread:set("prefix", "r\(run)-t" .. threads)
        end
        function request()
          counter = counter + 1
          local headers = {
            ["Authorization"] = "Bearer \(shop.token)", ["Content-Type"] = "application/json",
            ["Idempotency-Key"] = \(keyExpression)\(close ? #", ["Connection"] = "close""# : "")
          }
          return wrk.format("POST", "/v1/orders", headers, '\(body)')
        end
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let before = Bench.cpuSeconds(of: shop.daemon.pid)
        let ordersBefore = try count(shop)
        let times = script + ".time"
        let result = try ChildProcess.run(
            "/usr/bin/time",
            [
                "-f", "%U %S", "-o", times, "/usr/bin/wrk", "-t", String(min(2, connections)), "-c",
                String(connections), "-d", "\(Int(seconds))s", "--latency", "-s", script,
                "https://127.0.0.1:\(shop.port)",
            ], timeout: seconds + 60)
        let wrkCPU = ((try? String(contentsOfFile: times, encoding: .utf8)) ?? "")
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }.reduce(0, +)
        let cpu = Bench.cpuSeconds(of: shop.daemon.pid) - before
        let orders = try count(shop) - ordersBefore
        let lines = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func field(_ prefix: String) -> String {
            lines.first { $0.hasPrefix(prefix) }?.split(separator: " ", omittingEmptySubsequences: true)
                .dropFirst().first.map(String.init) ?? "?"
        }
        let requests = max(1, Int((Double(field("Requests/sec:")) ?? 0) * seconds))
        // A unique key per request: the rate is what the database holds, not what wrk counted (which includes any
        // refusal); a replayed key writes nothing, and its rate is wrk's, every answer a 2xx.
        let failed =
            lines.first { $0.hasPrefix("Non-2xx or 3xx responses:") }
            .flatMap { $0.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } } ?? 0
        let rate = keys == "unique" ? Double(orders) / seconds : Double(requests) / seconds
        return Run(
            perSecond: rate, p50: field("50%"), p99: field("99%"),
            cpuPerOrder: cpu / Double(keys == "unique" ? max(1, orders) : requests), orders: orders,
            clientCPUPerRequest: wrkCPU / Double(requests), failed: failed)
    }

    static func count(_ shop: Shop) throws -> Int {
        let result = try ChildProcess.run("/usr/bin/sqlite3", [shop.daemon.database, "SELECT count(*) FROM carts"])
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    static func report(pizzad: String, work: String, seconds: Double, rounds: Int) async throws -> Bool {
        print("order API: POST /v1/orders over TLS against order.create on the control socket, back to back")
        print("(16 clients each; two pizzas, placed; a unique Idempotency-Key per order unless replayed)")
        var rows: [[String]] = []
        var ratios: [Double] = []
        var p99s: [String] = []
        var replayP50s: [String] = []
        var reconnectRatios: [Double] = []
        /// pizzad's CPU for a resumed reconnecting order beyond a keep-alive one's, and the C floor's per connection.
        var reconnectExtras: [Double] = []
        var floorConnections: [Double] = []
        var http2Rates: [Double] = []
        var http2CPUs: [Double] = []
        var failed = 0
        for round in 1...rounds {
            let shop = try start(pizzad: pizzad, directory: work + "/api-\(round)")
            defer { _ = try? shop.daemon.stop() }
            // The two compared back to back, in turn first (the second runs on a database the first has grown), each
            // on a settled disk.
            let socket: LoadResult
            let keepAlive: Run
            Bench.settleDisk()
            if round % 2 == 1 {
                socket = try Load.create(daemon: shop.daemon, clients: 16, seconds: seconds)
                Bench.settleDisk()
                keepAlive = try wrk(shop, connections: 16, seconds: seconds, keys: "unique", work: work)
            } else {
                keepAlive = try wrk(shop, connections: 16, seconds: seconds, keys: "unique", work: work)
                Bench.settleDisk()
                socket = try Load.create(daemon: shop.daemon, clients: 16, seconds: seconds)
            }
            Bench.settleDisk()
            let socketCPU = socket.daemonCPUMicrosPerOperation
            rows.append([
                "\(round)", "socket order.create", Bench.format(socket.perSecond, 0),
                us(socket.latency.valueAtPercentile(50)), us(socket.latency.valueAtPercentile(99)),
                Bench.format(socketCPU, 0),
                Bench.format((socket.clientCPU ?? 0) / Double(max(1, socket.operations)) * 1e6, 0), "",
            ])
            rows.append([
                "\(round)", "HTTP/1.1 TLS keep-alive", Bench.format(keepAlive.perSecond, 0), keepAlive.p50,
                keepAlive.p99, Bench.format(keepAlive.cpuPerOrder * 1e6, 0),
                Bench.format(keepAlive.clientCPUPerRequest * 1e6, 0), "\(keepAlive.failed)",
            ])
            ratios.append(keepAlive.perSecond / max(1, socket.perSecond))
            p99s.append(keepAlive.p99)
            failed += keepAlive.failed
            for connections in [1, 16] {
                let replay = try wrk(shop, connections: connections, seconds: seconds, keys: "replayed", work: work)
                rows.append([
                    "\(round)", "replayed key, \(connections) client\(connections == 1 ? "" : "s") (no write)",
                    Bench.format(replay.perSecond, 0), replay.p50, replay.p99,
                    Bench.format(replay.cpuPerOrder * 1e6, 0), Bench.format(replay.clientCPUPerRequest * 1e6, 0),
                    "\(replay.failed)",
                ])
                if connections == 1 { replayP50s.append(replay.p50) }
                failed += replay.failed
            }
            let fresh = try wrk(shop, connections: 16, seconds: seconds, keys: "unique", close: true, work: work)
            failed += fresh.failed
            rows.append([
                "\(round)", "new TLS connection each", Bench.format(fresh.perSecond, 0), fresh.p50, fresh.p99,
                Bench.format(fresh.cpuPerOrder * 1e6, 0), Bench.format(fresh.clientCPUPerRequest * 1e6, 0),
                "\(fresh.failed)",
            ])
            // A reconnecting till on a connection per order: with a full handshake each time, and resumed (the
            // ticket of its last connection), against a keep-alive order's CPU.
            for resume in [false, true] {
                Bench.settleDisk()
                guard let (fresh, resumed) = try reconnecting(shop, seconds: seconds, resume: resume, work: work) else {
                    break
                }
                failed += fresh.failed
                rows.append([
                    "\(round)",
                    "new TLS connection each, \(resume ? "resumed, \(resumed) of them" : "full handshake") (ctls)",
                    Bench.format(fresh.perSecond, 0), fresh.p50, fresh.p99, Bench.format(fresh.cpuPerOrder * 1e6, 0),
                    Bench.format(fresh.clientCPUPerRequest * 1e6, 0), "\(fresh.failed)",
                ])
                if resume {
                    reconnectRatios.append(fresh.cpuPerOrder / max(1e-9, keepAlive.cpuPerOrder))
                    reconnectExtras.append(fresh.cpuPerOrder - keepAlive.cpuPerOrder)
                }
            }
            Bench.settleDisk()
            if let floor = try tlsFloor(shop, seconds: seconds, work: work) {
                rows.append([
                    "\(round)", "C floor: resumed TLS 1.3 connection, no order (tlsfloor; OpenSSL)",
                    Bench.format(floor.perSecond, 0), "-", "-", Bench.format(floor.cpuPerOrder * 1e6, 0),
                    Bench.format(floor.clientCPUPerRequest * 1e6, 0), "\(floor.failed)",
                ])
                floorConnections.append(floor.cpuPerOrder)
            }
            Bench.settleDisk()
            if let h2 = try http2(shop, seconds: seconds, work: work) {
                failed += h2.failed
                rows.append([
                    "\(round)", "HTTP/2, 2 connections x 8 streams (ch2, libnghttp2)", Bench.format(h2.perSecond, 0),
                    h2.p50, h2.p99, Bench.format(h2.cpuPerOrder * 1e6, 0),
                    Bench.format(h2.clientCPUPerRequest * 1e6, 0), "\(h2.failed)",
                ])
                http2Rates.append(h2.perSecond / max(1, keepAlive.perSecond))
                http2CPUs.append(h2.cpuPerOrder / max(1e-9, keepAlive.cpuPerOrder))
            }
            let h2 = try await APIHTTP2.run(shop, streams: 16, seconds: seconds)
            rows.append([
                "\(round)", "\(h2.version), 16 streams (AsyncHTTPClient; \(h2.failures) failed)",
                Bench.format(h2.perSecond, 0), us(h2.latency.valueAtPercentile(50)),
                us(h2.latency.valueAtPercentile(99)), Bench.format(h2.cpuPerOrder * 1e6, 0),
                Bench.format(h2.clientCPUPerOrder * 1e6, 0), "\(h2.failures)",
            ])
        }
        Bench.table(
            [
                "round", "client", "orders/s", "p50", "p99", "pizzad CPU µs/order", "client CPU µs/request",
                "not 2xx",
            ], rows)
        let ratio = Bench.median(ratios)
        // Each target in the verdict: the rate, the tail (median of the rounds' p99) and a replay's p50, and no
        // answer that was not a 2xx (a refusal is fast, and would pass for a rate).
        let p99 = Bench.median(p99s.map { milliseconds($0) ?? .infinity })
        let replayP50 = Bench.median(replayP50s.map { milliseconds($0) ?? .infinity })
        let held = ratio >= 0.8 && p99 < 10 && replayP50 < 1 && failed == 0
        print(
            "order API: HTTP/1.1 over TLS / socket \(ratios.map { Bench.format($0, 2) }.joined(separator: ", ")) "
                + "(median \(Bench.format(ratio, 2)), target ≥ 0.80), p99 \(p99s.joined(separator: ", ")) "
                + "(median \(Bench.format(p99, 2)) ms, target < 10 ms); a replayed key answers in "
                + "\(replayP50s.joined(separator: ", ")) p50 (median \(Bench.format(replayP50, 3)) ms, target < 1 ms); "
                + "\(failed) answers not 2xx (target 0): " + (held ? "held" : "NOT HELD"))
        if !http2Rates.isEmpty {
            let rate = Bench.median(http2Rates)
            let cpu = Bench.median(http2CPUs)
            print(
                "order API: HTTP/2 (ch2) / HTTP/1.1 \(http2Rates.map { Bench.format($0, 2) }.joined(separator: ", ")) "
                    + "(median \(Bench.format(rate, 2)), target ≥ 0.80), pizzad's CPU per order "
                    + "\(http2CPUs.map { Bench.format($0, 2) }.joined(separator: ", "))× HTTP/1.1's (median "
                    + "\(Bench.format(cpu, 2)), target ≤ 1.30): " + (rate >= 0.8 && cpu <= 1.3 ? "held" : "NOT held"))
        }
        if !reconnectRatios.isEmpty {
            let reconnect = Bench.median(reconnectRatios)
            print(
                "order API: a till on a new TLS connection per order, resumed: pizzad's CPU per order "
                    + "\(reconnectRatios.map { Bench.format($0, 2) }.joined(separator: ", "))× a keep-alive order's "
                    + "(median \(Bench.format(reconnect, 2)), target ≤ 2: \(reconnect <= 2 ? "held" : "NOT held"))")
        }
        if !reconnectExtras.isEmpty, !floorConnections.isEmpty {
            // ≤ 2× a keep-alive order means a connection may cost at most one keep-alive order: set beside what a
            // connection costs a server in C that does nothing else.
            print(
                "order API: a resumed connection costs pizzad "
                    + "\(Bench.format(Bench.median(reconnectExtras) * 1e6, 0)) µs beyond a keep-alive order (median); "
                    + "the C floor (tlsfloor, OpenSSL, no order) "
                    + "\(floorConnections.map { Bench.format($0 * 1e6, 0) }.joined(separator: ", ")) µs a connection")
        }
        return held
    }
}
