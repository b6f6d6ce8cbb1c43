import Foundation
import Histogram
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire

enum Load {
    static let twoPizzas: JSONValue = [["kind": "chicken", "size": "L", "extras": ["olives"]], ["kind": "cheese"]]

    /// What `order.create` carries: a unique `ref` per order, as a till numbers its tickets (`<run><client>-<n>`),
    /// and, for `replayEvery: N`, every Nth request the `ref` of the order before it again (a till retrying after a
    /// timeout), which must answer that order and write nothing.
    struct Refs: Sendable {
        /// A short token of this run, so that refs are unique across steps on one database; nil: no `ref` at all.
        let run: String?
        /// Every how many requests one is a replay; nil: none.
        var replayEvery: Int?

        static func fresh(replayEvery: Int? = nil) -> Refs {
            Refs(run: String(Bench.now() % 1_000_000_007, radix: 36), replayEvery: replayEvery)
        }

        /// Requests without a `ref`, as the benchmark sent before tills were modelled (for the with/without ratio).
        static let none = Refs(run: nil, replayEvery: nil)
    }

    /// `clients` connections creating orders with two pizzas, placed at once (the rows samework.c and
    /// pg-samework.sql write), each with a unique `ref`, as fast as they are answered, for `seconds`.
    ///
    /// Each client is a plain thread on a blocking socket sending a request line it prepared once (only the ref and
    /// the id change), like a till that knows what it sends: the load generator should cost the shared two cores as
    /// little as it can, and what it does cost is measured (`clientCPU`). Every answer is checked to be a result.
    /// With `refs.replayEvery`, the replays' latencies are kept apart (`LoadResult.replays`), and each is checked to
    /// answer the order first created with that ref.
    ///
    /// With `perSecond`, the clients together send at that pace instead (each its share, at even intervals, going
    /// at once when it is behind): a shop's load below the machine's limit, where two runs do the same work.
    ///
    /// `order` is the request's params beside `ref` (two pizzas placed at once unless said); with `pay`, each order
    /// is paid by card for its total once it is made (`order.pay`), and an operation is the two.
    static func create(
        daemon: PizzadProcess, clients: Int, seconds: Double, refs: Refs = .fresh(), perSecond: Double? = nil,
        order: [(String, JSONValue)] = [("customer", "bench"), ("items", twoPizzas), ("place", true)], pay: Bool = false
    ) throws -> LoadResult {
        let socket = daemon.socket
        let collected = Locked<
            (count: Int, replays: Int, histogram: Histogram<UInt64>, replay: Histogram<UInt64>, failure: String?)
        >(
            (
                0, 0, Histogram<UInt64>(highestTrackableValue: 60_000_000_000),
                Histogram<UInt64>(highestTrackableValue: 60_000_000_000), nil
            ))
        let finished = DispatchSemaphore(value: 0)
        let cpuBefore = Bench.cpuSeconds(of: daemon.pid)
        let clientCPUBefore = Bench.ownCPUSeconds()
        let deadline = Bench.now() + UInt64(seconds * 1e9)
        let started = Bench.now()
        for client in 0..<clients {
            let thread = Thread {
                var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000)
                var replayHistogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000)
                var count = 0
                var replays = 0
                var failure: String?
                // The request cut where the ref goes and where the id goes: `… "params":{"ref":"` REF `",…,"id":` N `}`.
                let line = RPCRequest(id: nil, method: OrderOperation.create.rawValue, params: Params(order)).line
                guard let params = line.range(of: #""params":{"#) else { fatalError("no params in \(line)") }
                let head = Array(line[..<params.upperBound].utf8)
                let middle = Array(line[params.upperBound...].utf8.dropLast()) + Array(#","id":"#.utf8)
                let tag = refs.run.map { #""ref":""# + $0 + "c\(client)-" }
                var lastCreated: (ref: Int, id: Substring)?
                do {
                    let connection = try RawConnection(path: socket, receiveTimeout: 30)
                    var request = 0
                    var ticket = 0
                    let interval = perSecond.map { UInt64(Double(clients) / $0 * 1e9) }
                    var next = Bench.now() + UInt64(client) * (interval ?? 0) / UInt64(clients)
                    while Bench.now() < deadline {
                        if let interval {
                            let now = Bench.now()
                            if next > now { usleep(UInt32((next - now) / 1_000)) }
                            next += interval
                        }
                        request += 1
                        let replay = refs.replayEvery.map { request % $0 == 0 } ?? false && lastCreated != nil
                        if !replay { ticket += 1 }
                        let ref = replay ? lastCreated!.ref : ticket
                        let begin = Bench.now()
                        let refField = tag.map { Array(($0 + String(ref) + #"","#).utf8) } ?? []
                        try connection.send(head + refField + middle + Array("\(request)}\n".utf8))
                        guard let answer = try connection.readLine() else {
                            throw BenchError("pizzad closed the connection")
                        }
                        let expected = #"{"jsonrpc":"2.0","id":\#(request),"result":{"id":"#
                        guard answer.hasPrefix(expected) else {
                            throw BenchError("order.create failed: \(answer.prefix(300))")
                        }
                        let id = answer.dropFirst(expected.count).prefix { $0.isNumber }
                        if pay, !replay {
                            try Self.pay(id: id, answer: answer, request: request, on: connection)
                        }
                        if replay {
                            guard id == lastCreated!.id else {
                                throw BenchError("a replayed ref made order \(id), not \(lastCreated!.id)")
                            }
                            _ = replayHistogram.record(Bench.now() - begin)
                            replays += 1
                        } else {
                            _ = histogram.record(Bench.now() - begin)
                            count += 1
                            lastCreated = (ref, id)
                        }
                    }
                } catch {
                    failure = "\(error)"
                }
                collected.withLock { total in
                    total.count += count
                    total.replays += replays
                    total.histogram.add(histogram)
                    total.replay.add(replayHistogram)
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
        var result = LoadResult(
            operations: total.count, seconds: elapsed, latency: total.histogram,
            daemonCPU: Bench.cpuSeconds(of: daemon.pid) - cpuBefore, peakRSS: Bench.peakRSS(of: daemon.pid),
            clientCPU: clientCPU, groupCommits: try groupCommits(socket: socket))
        if refs.replayEvery != nil { result.replays = (total.replays, total.replay) }
        return result
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

    /// The kitchen: each client creates an order (with a unique `ref`, as a till sends), places it, advances it to
    /// delivered, reads it back and lists the placed orders, while one `events.watch` subscriber follows everything.
    /// Latency per operation kind.
    static func kitchen(daemon: PizzadProcess, clients: Int, seconds: Double) async throws
        -> (result: LoadResult, byKind: [String: Histogram<UInt64>], events: Int)
    {
        let socket = daemon.socket
        let cpuBefore = Bench.cpuSeconds(of: daemon.pid)
        let deadline = Bench.now() + UInt64(seconds * 1e9)
        let started = Bench.now()
        let watcher = Task { () -> Int in
            (try? await ControlClient.withConnection(socket: socket) { client in
                _ = try await client.call(.watch)
                var events = 0
                while Bench.now() < deadline + 500_000_000, (try await client.nextNotification()) != nil { events += 1 }
                return events
            }) ?? 0
        }
        let kinds = ["create", "place", "advance", "get", "list"]
        let run = Refs.fresh().run ?? ""
        let outcome = try await withThrowingTaskGroup(of: (Int, [String: Histogram<UInt64>]).self) { group in
            for till in 0..<clients {
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
                        var ticket = 0
                        while Bench.now() < deadline {
                            ticket += 1
                            let order = try await timed(
                                "create", OrderOperation.create.rawValue,
                                [
                                    ("customer", "kitchen"), ("ref", .string("\(run)k\(till)-\(ticket)")),
                                    ("items", twoPizzas),
                                ])
                            let id = order["id"]!
                            _ = try await timed("place", OrderOperation.place.rawValue, [("id", id)])
                            for _ in 0..<5 {
                                _ = try await timed("advance", OrderOperation.advance.rawValue, [("id", id)])
                            }
                            _ = try await timed("get", OrderOperation.get.rawValue, [("id", id)])
                            _ = try await timed(
                                "list", OrderOperation.list.rawValue, [("status", "placed"), ("limit", 50)])
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
            try await $0.call(OrderOperation.create.rawValue, [("customer", "last")])
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
        daemon: PizzadProcess, count: Int, _ request: (Int) -> (String, [(String, JSONValue)])
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
    static func latency(
        daemon: PizzadProcess, count: Int, _ request: @escaping (Int) -> (String, [(String, JSONValue)])
    )
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
