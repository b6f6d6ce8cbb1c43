import Foundation
import PizzaTesting

/// The order API's load clients in C, cheaper than pizzad so that what they measure is pizzad: a till that
/// reconnects for every order (`Baselines/ctls.c`, OpenSSL) and tills over HTTP/2 (`Baselines/ch2.c`, libnghttp2).
extension APIBench {
    /// A load client in C (`Baselines/NAME.c`, built into `work` the first time with `libraries`), run against
    /// `shop`: its output's numbers, pizzad's CPU seconds over the run and the orders it added. Nil where it cannot
    /// be built (no C compiler or the libraries' headers), with why.
    static func cClient(
        _ name: String, libraries: [String], _ shop: Shop, arguments: [String], seconds: Double, work: String
    ) throws -> (fields: [Double], cpu: Double, orders: Int)? {
        let client = work + "/" + name
        if !FileManager.default.isExecutableFile(atPath: client) {
            let built = try ChildProcess.run(
                "/usr/bin/env",
                ["gcc", "-O2", "-pthread", "-o", client, Steps.baselines + "/\(name).c"] + libraries.map { "-l" + $0 })
            guard built.status == 0 else {
                print(
                    "\(name) not measured: \(name).c did not build (gcc, and \(libraries) with headers): \(built.output)"
                )
                return nil
            }
        }
        let before = Bench.cpuSeconds(of: shop.daemon.pid)
        let ordersBefore = try count(shop)
        let result = try ChildProcess.run(
            client, ["127.0.0.1", String(shop.port), shop.certificate, shop.token] + arguments, timeout: seconds + 60)
        let cpu = Bench.cpuSeconds(of: shop.daemon.pid) - before
        let orders = try count(shop) - ordersBefore
        let fields = result.output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard result.status == 0, fields.count == 6 else { throw BenchError("\(name): \(result.output)") }
        return (fields, cpu, orders)
    }

    /// A till that opens a new TLS connection for every order (`Baselines/ctls.c`, C on OpenSSL, so that the client
    /// costs less than pizzad): 16 of them for `seconds`, offering the last connection's session (a TLS 1.3 ticket)
    /// when `resume`, else a full handshake each time.
    static func reconnecting(_ shop: Shop, seconds: Double, resume: Bool, work: String) throws -> (Run, resumed: Int)? {
        guard
            let (fields, cpu, orders) = try cClient(
                "ctls", libraries: ["ssl", "crypto"], shop,
                arguments: ["16", String(seconds), resume ? "resume" : "full"],
                seconds: seconds, work: work)
        else { return nil }
        return (
            Run(
                perSecond: Double(orders) / seconds, p50: "-", p99: "-", cpuPerOrder: cpu / Double(max(1, orders)),
                orders: orders, clientCPUPerRequest: (fields[4] + fields[5]) / Double(max(1, Self.whole(fields[3]))),
                failed: Self.whole(fields[1])),
            Self.whole(fields[2])
        )
    }

    /// The floor under a reconnecting till: `Baselines/tlsfloor.c`, a server in C on the system's OpenSSL that shakes
    /// hands over TLS 1.3, reads one request and answers 201 without making an order, loaded by the same 16 resumed
    /// `ctls` tills with the shop's certificate. Its CPU per connection is what a connection costs before any work,
    /// to set beside what pizzad's reconnecting order costs beyond a keep-alive one.
    static func tlsFloor(_ shop: Shop, seconds: Double, work: String) throws -> Run? {
        let server = work + "/tlsfloor"
        let client = work + "/ctls"
        for (program, path) in [("tlsfloor", server), ("ctls", client)]
        where !FileManager.default.isExecutableFile(atPath: path) {
            let built = try ChildProcess.run(
                "/usr/bin/env",
                ["gcc", "-O2", "-pthread", "-o", path, Steps.baselines + "/\(program).c", "-lssl", "-lcrypto"])
            guard built.status == 0 else {
                print("the C floor not measured: \(program).c did not build (gcc, libssl-dev): \(built.output)")
                return nil
            }
        }
        let port = 40_000 + Int.random(in: 0..<20_000)
        let key = (shop.certificate as NSString).deletingLastPathComponent + "/api.key"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = [String(port), shop.certificate, key, "16"]
        let output = try OutputPipe()
        try output.run(process, errors: true)
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let ready = ContinuousClock.now + .seconds(10)
        while !String(decoding: output.data, as: UTF8.self).contains("ready"), process.isRunning,
            ContinuousClock.now < ready
        {
            usleep(10_000)
        }
        guard process.isRunning else {
            throw BenchError("tlsfloor: \(String(decoding: output.data, as: UTF8.self))")
        }
        let before = Bench.cpuSeconds(of: process.processIdentifier)
        let result = try ChildProcess.run(
            client, ["127.0.0.1", String(port), shop.certificate, "floor", "16", String(seconds), "resume"],
            timeout: seconds + 60)
        let cpu = Bench.cpuSeconds(of: process.processIdentifier) - before
        let fields = result.output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard result.status == 0, fields.count == 6 else { throw BenchError("ctls against tlsfloor: \(result.output)") }
        let connections = Self.whole(fields[0])
        return Run(
            perSecond: Double(connections) / seconds, p50: "-", p99: "-",
            cpuPerOrder: cpu / Double(max(1, connections)), orders: connections,
            clientCPUPerRequest: (fields[4] + fields[5]) / Double(max(1, Self.whole(fields[3]))),
            failed: Self.whole(fields[1]))
    }

    /// Tills over HTTP/2 on libnghttp2 (`Baselines/ch2.c`): two TLS connections (one per event loop of pizzad's),
    /// eight streams each, every order its own key, against HTTP/1.1's 16 connections.
    static func http2(_ shop: Shop, seconds: Double, work: String) throws -> Run? {
        guard
            let (fields, cpu, orders) = try cClient(
                "ch2", libraries: ["nghttp2", "ssl", "crypto"], shop, arguments: ["2", "8", String(seconds)],
                seconds: seconds, work: work)
        else { return nil }
        return Run(
            perSecond: Double(orders) / seconds, p50: Bench.format(fields[2] / 1000, 2) + "ms",
            p99: Bench.format(fields[3] / 1000, 2) + "ms", cpuPerOrder: cpu / Double(max(1, orders)), orders: orders,
            clientCPUPerRequest: (fields[4] + fields[5])
                / Double(max(1, Self.whole(fields[0]) + Self.whole(fields[1]))),
            failed: Self.whole(fields[1]))
    }

    /// A count a client printed, as a whole number (0 for anything that is not one: a client's output is input).
    static func whole(_ value: Double) -> Int {
        value.isFinite && value >= 0 && value < 1e15 ? Int(value) : 0
    }
}
