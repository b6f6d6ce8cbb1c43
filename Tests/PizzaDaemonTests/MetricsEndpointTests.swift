import DaemonHarness
import Foundation
import PizzaTesting
import Testing

/// The HTTP metrics and health endpoint (CONTRACT section 10), the shipped alerts and dashboard, against a real
/// pizzad, promtool and a real Prometheus server.
@Suite("HTTP metrics endpoint, alerts and dashboard", .serialized, .offThePool)
struct MetricsEndpointTests {
    static let config = "metrics:\n  listen: 127.0.0.1:0\n"
    static let monitoring = Binaries.repository + "/config/monitoring"

    /// A daemon with the endpoint on a free loopback port, and that port.
    func start(directory: String? = nil) throws -> (PizzadProcess, Int) {
        let daemon = try PizzadProcess(config: Self.config, directory: directory)
        let port = try #require(daemon.metricsPort, "no 'serving metrics' line in:\n\(daemon.output)")
        return (daemon, port)
    }

    @Test("GET /metrics, /healthz, /readyz: content types, HEAD, keep-alive; promtool check metrics passes")
    func serves() throws {
        let (daemon, port) = try start()
        try #require(daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        try #require(daemon.pizzactl(["order", "advance", "1"]).status == 0)
        try #require(daemon.pizzactl(["order", "new", "--place", "chicken"]).status == 0)
        try #require(daemon.pizzactl(["order", "cancel", "2", "--reason", "no show"]).status == 0)

        let metrics = try httpGet(port: port, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        for line in [
            "pizzad_orders_created_total 2", #"pizzad_orders{status="preparing"} 1"#,
            #"pizzad_order_stage_duration_seconds_count{status="placed"} 1"#,
            #"pizzad_orders_cancelled_total{from="placed"} 1"#, #"pizzad_storage_state{state="ok"} 1"#,
            "pizzad_group_commit_changes_count ", "pizzad_database_size_bytes ", "pizzad_wal_size_bytes ",
            #"pizzad_orders_oldest_age_seconds{status="preparing"} "#, "pizzad_build_info{version=",
            "process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds ",
            "process_start_time_seconds ", "# HELP pizzad_orders_oldest_age_seconds ",
        ] {
            #expect(metrics.body.contains(line), "missing \(line)")
        }
        #expect(metrics.body.contains(#"schema="\#(Migrations.latestVersion)""#))
        // Every metric family says what it means.
        let lines = metrics.body.split(separator: "\n")
        let typed = Set(
            lines.filter { $0.hasPrefix("# TYPE ") }.compactMap { $0.split(separator: " ").dropFirst(2).first })
        let helped = Set(
            lines.filter { $0.hasPrefix("# HELP ") }.compactMap { $0.split(separator: " ").dropFirst(2).first })
        #expect(typed == helped && typed.count > 20, "no help: \(typed.subtracting(helped))")
        // Prometheus's own linter (.ci/run installs it with Debian's prometheus): missing, this fails, not passes.
        try #require(Binaries.available("promtool"), "promtool is not installed: apt-get install prometheus")
        let lint = try run("promtool", ["check", "metrics"], input: metrics.body)
        #expect(lint.status == 0, "\(lint)")
        let status = try daemon.pizzactl(["status"])
        #expect(status.stdout.contains("metrics: http://127.0.0.1:\(port)/metrics"), "\(status)")
        // The socket's metrics.get is the same exposition.
        let viaSocket = try daemon.pizzactl(["metrics"])
        #expect(viaSocket.status == 0)
        #expect(viaSocket.stdout.contains("pizzad_order_stage_duration_seconds_bucket"))

        let health = try httpGet(port: port, "/healthz")
        #expect(health.status == 200 && health.body == "ok\n")
        let ready = try httpGet(port: port, "/readyz")
        #expect(ready.status == 200 && ready.body == "ready\n")
        let head = try httpGet(port: port, "/metrics", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.contentLength > 1000)
        #expect(try httpGet(port: port, "/metrics?name[]=up").status == 200)

        // Keep-alive: three requests on one connection, as Prometheus scrapes.
        let connection = try HTTPConnection(port: port)
        for path in ["/healthz", "/metrics", "/readyz"] {
            try connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200, "\(path): \(response)")
        }
        #expect(try daemon.stop() == 0)
    }

    @Test("gauges are rebuilt from the database after a restart, counters start again at zero")
    func restart() throws {
        let directoryFolder = try TemporaryFolder("pizzad-metrics-restart")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        var (daemon, _) = try start(directory: directory)
        for _ in 0..<3 { try #require(daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0) }
        try #require(daemon.pizzactl(["order", "advance", "1"]).status == 0)
        #expect(try daemon.stop() == 0)
        usleep(300_000)
        let port: Int
        (daemon, port) = try start(directory: directory)
        let body = try httpGet(port: port, "/metrics").body
        #expect(body.contains(#"pizzad_orders{status="placed"} 2"#), "\(body)")
        #expect(body.contains(#"pizzad_orders{status="preparing"} 1"#))
        #expect(body.contains("pizzad_orders_created_total 0"))
        let age = body.split(separator: "\n").first {
            $0.hasPrefix(#"pizzad_orders_oldest_age_seconds{status="placed"}"#)
        }
        let seconds = age.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } ?? 0
        #expect(seconds >= 0.3, "the oldest placed order's age survives the restart: \(String(describing: age))")
        #expect(try daemon.stop() == 0)
    }

    @Test("/readyz is 503 with the reason while storage fails, and the metrics say so")
    func notReady() throws {
        let (daemon, port) = try start()
        try #require(daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        // The database file removed under the daemon: changes are refused with storage, nothing is lost into it.
        try FileManager.default.removeItem(atPath: daemon.database)
        let refused = try daemon.pizzactl(["order", "new", "cheese"])
        #expect(refused.status == 1 && refused.stderr.contains("storage"), "\(refused)")
        let ready = try httpGet(port: port, "/readyz")
        #expect(ready.status == 503, "\(ready)")
        #expect(ready.body.hasPrefix("not ready: storage: ") && ready.body.contains("removed or replaced"), "\(ready)")
        #expect(ready.body.split(separator: "\n").count == 1)
        #expect(try httpGet(port: port, "/healthz").status == 200, "alive all the same")
        let body = try httpGet(port: port, "/metrics").body
        #expect(body.contains(#"pizzad_storage_state{state="failing"} 1"#))
        #expect(body.contains(#"pizzad_storage_state{state="ok"} 0"#))
        #expect(body.contains(#"pizzad_changes_failed_total{operation="order.create",error="storage"} 1"#))
        #expect(try daemon.stop() == 0)
    }

    @Test("bad requests are answered or cut off: wrong method, unknown path, garbage, an over-long request line")
    func badRequests() throws {
        let (daemon, port) = try start()
        let post = try httpGet(port: port, "/metrics", method: "POST")
        #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD", "\(post)")
        #expect(try httpGet(port: port, "/readyz", method: "DELETE").status == 405)
        let unknown = try httpGet(port: port, "/admin")
        #expect(unknown.status == 404 && unknown.body.contains("/metrics"))
        #expect(try httpGet(port: port, "/").status == 404)
        #expect(try httpGet(port: port, "/metrics/../etc/passwd").status == 404)

        let garbage = try HTTPConnection(port: port)
        try garbage.send("HELLO THERE\r\n\r\n")
        let (answer, closed) = garbage.readUntilClosed(timeout: 5)
        #expect(answer.hasPrefix("HTTP/1.1 400") && closed, "\(answer)")

        let long = try HTTPConnection(port: port)
        try? long.send("GET /" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\n\r\n")
        let (tooLong, cut) = long.readUntilClosed(timeout: 5)
        #expect(tooLong.hasPrefix("HTTP/1.1 431") && cut, "\(tooLong.prefix(200))")

        let headers = try HTTPConnection(port: port)
        try? headers.send(
            "GET /metrics HTTP/1.1\r\n" + String(repeating: "X-Filler: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n", count: 400))
        let (tooMany, _) = headers.readUntilClosed(timeout: 5)
        #expect(tooMany.hasPrefix("HTTP/1.1 431"), "\(tooMany.prefix(200))")

        // A body on a GET is not read past the limit either.
        let body = try HTTPConnection(port: port)
        try? body.send(
            "GET /metrics HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "z", count: 64_000))
        let (bodyAnswer, bodyCut) = body.readUntilClosed(timeout: 5)
        #expect(bodyAnswer.contains("HTTP/1.1 413") && bodyCut, "\(bodyAnswer.prefix(300))")

        #expect(try httpGet(port: port, "/healthz").status == 200)
        #expect(try daemon.pizzactl(["status"]).status == 0)
        #expect(try daemon.stop() == 0)
    }

    @Test(
        "1,000 idle connections and a client that never sends: scrapes and pizzactl go on; the silent are cut off"
    )
    func idleConnections() throws {
        let (daemon, port) = try start()
        // The first and the last of 1,000 in this process, to read their answers; the 998 between in a helper.
        let opened = Stopwatch()
        let first = try HTTPConnection(port: port)
        let held = try HeldConnections(port: port, count: 998)
        let last = try HTTPConnection(port: port)
        let slow = try HTTPConnection(port: port)
        try slow.send("GET /metr")  // and nothing more
        let started = Stopwatch()
        let scrape = try httpGet(port: port, "/metrics")
        #expect(scrape.status == 200)
        #expect(started.seconds < 5)
        // Up to the limit (1,024), then one more: answered 503 and closed at once, and counted.
        let toTheLimit = try HeldConnections(port: port, count: 1024 - 1001)
        // Accepted (so admitted in order) before the one past the limit connects.
        let accepted = Stopwatch()
        while try LoopbackTCP.waitingToBeAccepted(port: port) > 0, accepted.seconds < 10 { usleep(10_000) }
        // If the connections so far took nearly the request timeout (10 s) to make (a loaded run: seen once), the first
        // of them may be cut off before this one connects, and it is rightly let in; then only the count is checked
        // against what happened.
        let sinceFirst = opened.seconds
        let refused = try HTTPConnection(port: port)
        let (refusal, refusedClosed) = refused.readUntilClosed(timeout: 5)
        let wasRefused = refusedClosed && refusal.hasPrefix("HTTP/1.1 503")
        if sinceFirst < 8 {
            #expect(wasRefused, "\(refusal) (the one past the limit, \(sinceFirst) s after the first of them)")
        } else {
            print("the one past the limit connected \(sinceFirst) s after the first: refused \(wasRefused)")
        }
        toTheLimit.release()
        let counted = try daemon.pizzactl(["metrics"]).stdout
        let countedOne = counted.contains(#"pizzad_overload_refusals_total{reason="metrics_connections"} 1"#)
        #expect(countedOne == wasRefused, "\(counted)")
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        #expect(try daemon.pizzactl(["status"]).status == 0)
        // Both kinds are answered 408 and closed once the request timeout (10 s) passes.
        let (silent, silentClosed) = first.readUntilClosed(timeout: 20)
        #expect(silentClosed && silent.hasPrefix("HTTP/1.1 408"), "\(silent)")
        let (partial, partialClosed) = slow.readUntilClosed(timeout: 20)
        #expect(partialClosed && partial.hasPrefix("HTTP/1.1 408"), "\(partial)")
        let (lastAnswer, lastClosed) = last.readUntilClosed(timeout: 5)
        #expect(lastClosed, "\(lastAnswer)")
        held.release()
        #expect(try httpGet(port: port, "/metrics").status == 200)
        #expect(try daemon.stop() == 0)
    }

    @Test("a scrape answers at once while another program holds the database's write lock")
    func neverWaitsForTheWriter() async throws {
        try await withMachine(heavy: false) {
            let (daemon, port) = try start()
            try #require(daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
            let holder = try WriteLockHolder(database: daemon.database)
            // A change now waits for the lock (busy timeout 5 s); the scrape must not wait with it.
            let waiting = Thread { _ = try? daemon.pizzactl(["order", "new", "cheese"]) }
            waiting.start()
            // Its connection seen by the daemon (the scrape counts the socket's connections; it has no other one):
            // its request follows at once, and waits for the lock.
            let connected = TimeLimit(seconds: 10)
            while connected.remains, !(try httpGet(port: port, "/metrics").body.contains("\npizzad_connections 1")) {
                usleep(20_000)
            }
            try #require(connected.remains, "the waiting change never connected")
            let started = Stopwatch()
            for path in ["/metrics", "/readyz", "/healthz"] {
                #expect(try httpGet(port: port, path).status == 200)
            }
            let elapsed = started.seconds
            #expect(elapsed < (sanitizerIsActive ? 10 : 1.5), "three requests took \(elapsed) s")
            try holder.release()
            #expect(try daemon.stop() == 0)
        }
    }

    @Test("metrics.listen takes [::1]; a bad address or a taken port stops start-up naming it")
    func configuration() throws {
        if (try? HTTPConnection(port: 9, host: "::1")) != nil || errno == ECONNREFUSED {
            let daemon = try PizzadProcess(config: "metrics:\n  listen: \"[::1]:0\"\n")
            let line = daemon.output.split(separator: "\n").first { $0.contains("serving metrics") }
            let port = try #require(
                line.flatMap { $0.split(separator: ":").last }.flatMap { Int($0.dropLast("/metrics".count)) })
            #expect(try httpGet(port: port, "/healthz", host: "::1").status == 200)
            #expect(try daemon.stop() == 0)
        } else {
            print("skipping the [::1] case: this machine has no IPv6 loopback")
        }
        for bad in ["example.com:9464", "127.0.0.1", "127.0.0.1:70000", "[::1]9464", "1.2.3:80"] {
            let daemon = try PizzadProcess(config: "metrics:\n  listen: \"\(bad)\"\n", wait: .none)
            #expect(try daemon.waitForExit() == 78, "\(bad)")
            #expect(
                daemon.output.contains("metrics.listen") && daemon.output.contains("'\(bad)' is not allowed"),
                "\(daemon.output)")
        }
        let taken = try PizzadProcess(config: Self.config)
        let port = try #require(taken.metricsPort)
        let second = try PizzadProcess(config: "metrics:\n  listen: 127.0.0.1:\(port)\n", wait: .none)
        #expect(try second.waitForExit() == 1)
        #expect(second.output.contains("cannot listen for metrics on 127.0.0.1:\(port)"), "\(second.output)")
        let viaEnvironment = try PizzadProcess(environment: ["PIZZAD_METRICS_LISTEN": "127.0.0.1:0"])
        #expect(viaEnvironment.metricsPort != nil, "\(viaEnvironment.output)")
        #expect(try taken.stop() == 0)
    }

    @Test(
        "under systemd-socket-activate with two sockets, pizzad serves the control socket and the metrics socket",
        .enabled(if: Binaries.available("systemd-socket-activate")))
    func twoPassedSockets() throws {
        let directoryFolder = try TemporaryFolder("pizzad-activate2")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        let socket = directory + "/activated.sock"
        let port = try freeLoopbackPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "systemd-socket-activate", "--listen=\(socket)", "--listen=127.0.0.1:\(port)",
            "--fdname=pizzad.sock:metrics", Binaries.pizzad,
            "--database", directory + "/pizzad.sqlite", "--socket", directory + "/unused.sock",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let logPath = directory + "/log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardError = log
        process.standardOutput = log
        try process.runWithCleanSignals()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // systemd-socket-activate binds the control socket first and the TCP port after it: on a busy machine the
        // port may still refuse for a moment after the socket file appears. The first connection that gets through
        // (to the metrics socket) starts pizzad; then both are served.
        let deadline = TimeLimit(seconds: 15)
        var answer: Result<HTTPResponse, any Error>?
        while deadline.remains {
            answer = Result { try httpGet(port: port, "/healthz") }
            if case .success = answer { break }
            usleep(50_000)
        }
        let started = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        let first = try #require(
            answer.flatMap { try? $0.get() },
            "no answer on 127.0.0.1:\(port): \(String(describing: answer))\n\(started)")
        #expect(first.status == 200, "\(first)")
        let order = try run(
            Binaries.pizzactl, ["--socket", socket, "--timeout", "20", "order", "new", "--place", "cheese"])
        #expect(order.status == 0, "\(order)")
        let metrics = try httpGet(port: port, "/metrics")
        #expect(metrics.body.contains("pizzad_orders_created_total 1"))
        kill(process.processIdentifier, SIGTERM)
        #expect(waitForExit(process) == 0)
        let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(output.contains("serving on the socket passed by systemd"), "\(output)")
        #expect(output.contains("serving metrics on the socket passed by systemd"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/unused.sock"))
    }

    @Test(
        "the shipped alert rules pass promtool check rules and their unit tests",
        .enabled(if: Binaries.available("promtool")))
    func alertRules() throws {
        let check = try run("promtool", ["check", "rules", Self.monitoring + "/pizzad-alerts.yml"])
        #expect(check.status == 0, "\(check)")
        let tests = try run("promtool", ["test", "rules", Self.monitoring + "/pizzad-alerts.test.yml"])
        #expect(tests.status == 0, "\(tests)")
        let example = try run(
            "promtool", ["check", "config", "--syntax-only", Self.monitoring + "/prometheus.example.yml"])
        #expect(example.status == 0 || example.stdout.contains("SUCCESS"), "\(example)")
    }

    @Test(
        "a real Prometheus scrapes pizzad (up, created, stages); every dashboard query and alert rule evaluates",
        .enabled(if: Binaries.available("prometheus")))
    func realPrometheus() throws {
        let (daemon, port) = try start()
        let prometheus = try PrometheusServer(
            job: "pizzad", targets: ["127.0.0.1:\(port)"], ruleFiles: [Self.monitoring + "/pizzad-alerts.yml"])
        for index in 1...5 {
            try #require(daemon.pizzactl(["order", "new", "--place", "cheese", "chicken:L"]).status == 0)
            for _ in 0..<index { try #require(daemon.pizzactl(["order", "advance", "\(index)"]).status == 0) }
        }
        let up = try prometheus.waitFor(#"up{job="pizzad"}"#) { $0.first?.value == 1 }
        #expect(up.first?.value == 1, "up: \(up)\n\(prometheus.log)")
        let created = try prometheus.waitFor(#"pizzad_orders_created_total{job="pizzad"}"#) { $0.first?.value == 5 }
        #expect(created.first?.value == 5, "\(created)")
        // Waited for as the orders were left: Prometheus may have scraped while they were still being advanced (the
        // orders' commands take longer than its start under the whole suite's load), and a scrape taken then has
        // every order placed (order 5 left `placed` at its first step) but order 5 not yet past `shipped`.
        let stages = try prometheus.waitFor(#"pizzad_order_stage_duration_seconds_count{job="pizzad"}"#) { samples in
            samples.first { $0.labels["status"] == "placed" }?.value == 5
                && samples.first { $0.labels["status"] == "shipped" }?.value == 1
        }
        #expect(stages.first { $0.labels["status"] == "placed" }?.value == 5, "\(stages)")
        #expect(stages.first { $0.labels["status"] == "shipped" }?.value == 1, "\(stages)")
        // Order 5 went all the way: placed → delivered once.
        let delivered = try prometheus.query(#"pizzad_order_fulfilment_duration_seconds_count{job="pizzad"}"#)
        #expect(delivered.first?.value == 1, "\(delivered)")

        // Every query of the dashboard, with Grafana's variables as Grafana would fill them.
        let dashboard =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Self.monitoring + "/pizzad-dashboard.json")))
            as? [String: Any]
        let panels = try #require(dashboard?["panels"] as? [[String: Any]])
        var expressions: [String] = []
        for panel in panels {
            for target in panel["targets"] as? [[String: Any]] ?? [] {
                if let expression = target["expr"] as? String { expressions.append(expression) }
            }
        }
        #expect(expressions.count >= 15)
        for expression in expressions {
            let filled = expression.replacingOccurrences(of: "$__rate_interval", with: "1m")
                .replacingOccurrences(of: "$instance", with: ".*")
            #expect(throws: Never.self, "\(filled)") { _ = try prometheus.query(filled) }
        }
        // A query that evaluates may still name a metric nobody exports (renamed, or a typo): it would draw an empty
        // panel forever. Every metric a query names is a family the daemon exposes (a counter with labels may have
        // no sample before its first event, but its family is declared), or Prometheus's own `up`.
        let exposition = try httpGet(port: port, "/metrics").body
        let families = Set(
            exposition.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
                .compactMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) })
        let named = Set(
            expressions.flatMap { expression in
                expression.matches(of: /([a-z_:][a-z0-9_:]*)\{/).map { String($0.output.1) }
            }
        )
        let functions: Set<String> = ["rate", "sum", "max", "increase", "histogram_quantile"]
        for name in named.subtracting(functions).subtracting(["up"]) {
            let family = name.replacing(/_(bucket|sum|count)$/, with: "")
            #expect(
                families.contains(name) || families.contains(family),
                "the dashboard names \(name), which the daemon does not expose")
        }
        #expect(named.contains("pizzad_orders_created_total"), "the names were not read: \(named)")
        // Orders between scrapes, so rate() has two samples that differ.
        for _ in 0..<3 {
            try #require(daemon.pizzactl(["order", "new", "cheese"]).status == 0)
            usleep(1_100_000)
        }
        let rated = try prometheus.waitFor(
            #"sum(rate(pizzad_orders_created_total{job="pizzad", instance=~".*"}[1m])) * 60"#
        ) { ($0.first?.value ?? 0) > 0 }
        #expect((rated.first?.value ?? 0) > 0, "orders per minute: \(rated)")

        // Every alert rule has been evaluated by this Prometheus without an error.
        let deadline = TimeLimit(seconds: 20)
        var rules: [[String: Any]] = []
        repeat {
            let groups = (try prometheus.api("/api/v1/rules") as? [String: Any])?["groups"] as? [[String: Any]] ?? []
            rules = groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }
            let evaluated = rules.allSatisfy {
                ($0["lastEvaluation"] as? String).map { !$0.hasPrefix("0001") } ?? false
            }
            if !rules.isEmpty, evaluated { break }
            usleep(250_000)
        } while deadline.remains
        // Every rule of the shipped file (the outbox's three included), each evaluated without error.
        let shipped = try String(contentsOfFile: Self.monitoring + "/pizzad-alerts.yml", encoding: .utf8)
        #expect(rules.count == shipped.components(separatedBy: "- alert:").count - 1)
        for rule in rules {
            #expect(rule["health"] as? String == "ok", "\(rule["name"] ?? "?"): \(rule["lastError"] ?? "")")
        }
        // Nothing is wrong with this shop, so nothing fires (PizzadMissing would need no target at all).
        let firing = try prometheus.query(#"ALERTS{alertstate="firing"}"#)
        #expect(firing.isEmpty, "\(firing)")
        #expect(try daemon.stop() == 0)
    }
}

/// In the metrics endpoint's serialized suite: its 1,000 held connections never overlap that suite's own 1,000.
extension MetricsEndpointTests {
    @Test("1,000 idle connections and a client that never sends: the board and pizzactl go on; the silent are cut off")
    func boardIdleConnections() throws {
        let daemon = try PizzadProcess(config: "board:\n  listen: 127.0.0.1:0\n")
        let port = try #require(daemon.boardPort, "no 'serving board' line in:\n\(daemon.output)")
        let first = try HTTPConnection(port: port)
        let held = try HeldConnections(port: port, count: 998)
        let slow = try HTTPConnection(port: port)
        try slow.send("GET /boa")
        let started = Stopwatch()
        #expect(try httpGet(port: port, "/board").status == 200)
        #expect(started.seconds < 5)
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        let (silent, silentClosed) = first.readUntilClosed(timeout: 20)
        #expect(silentClosed && silent.hasPrefix("HTTP/1.1 408"), "\(silent)")
        let (partial, partialClosed) = slow.readUntilClosed(timeout: 20)
        #expect(partialClosed && partial.hasPrefix("HTTP/1.1 408"), "\(partial)")
        held.release()
        #expect(try httpGet(port: port, "/board").status == 200)
        #expect(try daemon.stop() == 0)
    }
}
