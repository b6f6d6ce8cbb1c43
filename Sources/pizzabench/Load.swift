import Foundation
import Histogram
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting

enum Load {
    static let twoPizzas: JSONValue = [["kind": "chicken", "size": "L", "extras": ["olives"]], ["kind": "cheese"]]

    /// `clients` connections creating orders with two pizzas, placed at once (the rows samework.c and
    /// pg-samework.sql write), as fast as they are answered, for `seconds`.
    ///
    /// Each client is a plain thread on a blocking socket sending a request line it prepared once (only the id
    /// changes), like a till that knows what it sends: the load generator should cost the shared two cores as
    /// little as it can, and what it does cost is measured (`clientCPU`). Every answer is checked to be a result.
    static func create(daemon: BenchDaemon, clients: Int, seconds: Double) throws -> LoadResult {
        let socket = daemon.socket
        let collected = Locked<(count: Int, histogram: Histogram<UInt64>, failure: String?)>(
            (0, Histogram<UInt64>(highestTrackableValue: 60_000_000_000), nil))
        let finished = DispatchSemaphore(value: 0)
        let cpuBefore = Bench.cpuSeconds(of: daemon.pid)
        let clientCPUBefore = Bench.ownCPUSeconds()
        let deadline = Bench.now() + UInt64(seconds * 1e9)
        let started = Bench.now()
        for _ in 0..<clients {
            let thread = Thread {
                var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000)
                var count = 0
                var failure: String?
                // The request without its id and closing brace; each send adds `,"id":N}`.
                let prefix =
                    Array(
                        RPCRequest(
                            id: nil, method: "order.create",
                            params: Params([("customer", "bench"), ("items", twoPizzas), ("place", true)])
                        )
                        .line.utf8.dropLast()) + Array(#","id":"#.utf8)
                do {
                    let connection = try RawConnection(path: socket, receiveTimeout: 30)
                    while Bench.now() < deadline {
                        let begin = Bench.now()
                        try connection.send(prefix + Array("\(count + 1)}\n".utf8))
                        guard let line = try connection.readLine() else {
                            throw BenchError("pizzad closed the connection")
                        }
                        guard line.hasPrefix(#"{"jsonrpc":"2.0","id":\#(count + 1),"result":"#) else {
                            throw BenchError("order.create failed: \(line.prefix(300))")
                        }
                        _ = histogram.record(Bench.now() - begin)
                        count += 1
                    }
                } catch {
                    failure = "\(error)"
                }
                collected.withLock { total in
                    total.count += count
                    total.histogram.add(histogram)
                    total.failure = total.failure ?? failure
                }
                finished.signal()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in 0..<clients { finished.wait() }
        let elapsed = Double(Bench.now() - started) / 1e9
        let clientCPU = Bench.ownCPUSeconds() - clientCPUBefore
        let total = collected.withLock { $0 }
        if let failure = total.failure { throw BenchError(failure) }
        return LoadResult(
            operations: total.count, seconds: elapsed, latency: total.histogram,
            daemonCPU: Bench.cpuSeconds(of: daemon.pid) - cpuBefore, peakRSS: Bench.peakRSS(of: daemon.pid),
            clientCPU: clientCPU, groupCommits: try groupCommits(socket: socket))
    }

    /// The daemon's own group-commit figures (`pizzad_group_commit` and its duration, from `metrics.get`): how
    /// full the batches were and how long each took, which says whether the writer or the round trip limits a run.
    static func groupCommits(socket: String) throws -> LoadResult.GroupCommits {
        let connection = try RawConnection(path: socket, receiveTimeout: 30)
        let answer = try connection.request(#"{"jsonrpc":"2.0","id":1,"method":"metrics.get"}"#)
        guard let text = (answer["result"] as? [String: Any])?["text"] as? String else {
            throw BenchError("metrics.get answered no text: \(answer)")
        }
        func value(_ name: String) -> Double {
            for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
                return Double(line.split(separator: " ").last ?? "") ?? 0
            }
            return 0
        }
        return LoadResult.GroupCommits(
            commits: value("pizzad_group_commit_changes_count"), changes: value("pizzad_group_commit_changes_sum"),
            seconds: value("pizzad_group_commit_duration_seconds_sum"))
    }

    /// The kitchen: each client creates an order, places it, advances it to delivered, reads it back and lists
    /// the placed orders, while one `events.watch` subscriber follows everything. Latency per operation kind.
    static func kitchen(daemon: BenchDaemon, clients: Int, seconds: Double) async throws
        -> (result: LoadResult, byKind: [String: Histogram<UInt64>], events: Int)
    {
        let socket = daemon.socket
        let cpuBefore = Bench.cpuSeconds(of: daemon.pid)
        let deadline = Bench.now() + UInt64(seconds * 1e9)
        let started = Bench.now()
        let watcher = Task { () -> Int in
            (try? await ControlClient.withConnection(socket: socket) { client in
                _ = try await client.call("events.watch")
                var events = 0
                while Bench.now() < deadline + 500_000_000, (try await client.nextNotification()) != nil { events += 1 }
                return events
            }) ?? 0
        }
        let kinds = ["create", "place", "advance", "get", "list"]
        let outcome = try await withThrowingTaskGroup(of: (Int, [String: Histogram<UInt64>]).self) { group in
            for _ in 0..<clients {
                group.addTask {
                    try await ControlClient.withConnection(socket: socket, timeout: .seconds(30)) { client in
                        var histograms = Dictionary(
                            uniqueKeysWithValues: kinds.map {
                                ($0, Histogram<UInt64>(highestTrackableValue: 60_000_000_000))
                            })
                        var count = 0
                        func timed(_ kind: String, _ method: String, _ params: [(String, JSONValue)]) async throws
                            -> JSONValue
                        {
                            let begin = Bench.now()
                            let result = try await client.call(method, params)
                            _ = histograms[kind]!.record(Bench.now() - begin)
                            count += 1
                            return result
                        }
                        while Bench.now() < deadline {
                            let order = try await timed(
                                "create", "order.create", [("customer", "kitchen"), ("items", twoPizzas)])
                            let id = order["id"]!
                            _ = try await timed("place", "order.place", [("id", id)])
                            for _ in 0..<5 { _ = try await timed("advance", "order.advance", [("id", id)]) }
                            _ = try await timed("get", "order.get", [("id", id)])
                            _ = try await timed("list", "order.list", [("status", "placed"), ("limit", 50)])
                        }
                        return (count, histograms)
                    }
                }
            }
            var total = 0
            var merged = Dictionary(
                uniqueKeysWithValues: kinds.map { ($0, Histogram<UInt64>(highestTrackableValue: 60_000_000_000)) })
            for try await (count, histograms) in group {
                total += count
                for (kind, histogram) in histograms { merged[kind]!.add(histogram) }
            }
            return (total, merged)
        }
        let elapsed = Double(Bench.now() - started) / 1e9
        // Wake the watcher once its time is up, so it sees the deadline and returns.
        try await Task.sleep(for: .milliseconds(600))
        _ = try await ControlClient.withConnection(socket: socket) {
            try await $0.call("order.create", [("customer", "last")])
        }
        var all = Histogram<UInt64>(highestTrackableValue: 60_000_000_000)
        for histogram in outcome.1.values { all.add(histogram) }
        let events = await watcher.value
        return (
            LoadResult(
                operations: outcome.0, seconds: elapsed, latency: all,
                daemonCPU: Bench.cpuSeconds(of: daemon.pid) - cpuBefore, peakRSS: Bench.peakRSS(of: daemon.pid)),
            outcome.1, events
        )
    }

    /// Latency of `method` with `params` from one client on a blocking socket, `count` times: the daemon's own
    /// round trip, as the order.create load measures it. Every answer is checked to be a result.
    static func blockingLatency(
        daemon: BenchDaemon, count: Int, _ request: (Int) -> (String, [(String, JSONValue)])
    ) throws -> Histogram<UInt64> {
        let connection = try RawConnection(path: daemon.socket, receiveTimeout: 30)
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000)
        for index in 0..<count {
            let (method, params) = request(index)
            let line =
                Array(RPCRequest(id: .int(Int64(index + 1)), method: method, params: Params(params)).line.utf8) + [
                    UInt8(ascii: "\n")
                ]
            let begin = Bench.now()
            try connection.send(line)
            guard let answer = try connection.readLine() else { throw BenchError("pizzad closed the connection") }
            _ = histogram.record(Bench.now() - begin)
            guard answer.hasPrefix(#"{"jsonrpc":"2.0","id":\#(index + 1),"result":"#) else {
                throw BenchError("\(method) failed: \(answer.prefix(300))")
            }
        }
        return histogram
    }

    /// Latency of `method` with `params` from one client (PizzaClient, the NIO client pizzactl uses), `count` times.
    static func latency(daemon: BenchDaemon, count: Int, _ request: @escaping (Int) -> (String, [(String, JSONValue)]))
        async throws
        -> Histogram<UInt64>
    {
        try await ControlClient.withConnection(socket: daemon.socket, timeout: .seconds(30)) { client in
            var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000)
            for index in 0..<count {
                let (method, params) = request(index)
                let begin = Bench.now()
                _ = try await client.call(method, params)
                _ = histogram.record(Bench.now() - begin)
            }
            return histogram
        }
    }
}
