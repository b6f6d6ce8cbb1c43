import AsyncHTTPClient
import Foundation
import Histogram
import NIOCore
import NIOSSL

/// `POST /v1/orders` over HTTP/2 from a client of pizzabench's own: AsyncHTTPClient on one TLS connection (ALPN
/// `h2`), `streams` requests in flight at once, each order its own `Idempotency-Key` (h2load sends one header for all).
enum APIHTTP2 {
    /// What a run measured.
    struct Run {
        var perSecond: Double
        var latency: Histogram<UInt64>
        var cpuPerOrder: Double
        /// Answers other than 201, and requests that failed outright.
        var failures: Int
        /// The HTTP version the answers came in (`HTTP/2.0`).
        var version: String
        /// pizzabench's own CPU (the client) per order.
        var clientCPUPerOrder: Double
    }

    static func run(_ shop: APIBench.Shop, streams: Int, seconds: Double) async throws -> Run {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(shop.certificate)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let cpuBefore = Bench.cpuSeconds(of: shop.daemon.pid)
        let clientBefore = Bench.ownCPUSeconds()
        let ordersBefore = try APIBench.count(shop)
        let started = Bench.now()
        let deadline = started + UInt64(seconds * 1e9)
        let run = Int.random(in: 0..<1_000_000_000)
        let outcome = await withTaskGroup(of: (Histogram<UInt64>, Int, String).self) { group in
            for stream in 0..<streams {
                group.addTask {
                    var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000_000)
                    var failures = 0
                    var version = "?"
                    var index = 0
                    while Bench.now() < deadline {
                        index += 1
                        var request = HTTPClientRequest(url: "https://127.0.0.1:\(shop.port)/v1/orders")
                        request.method = .POST
                        request.headers.add(name: "Authorization", value: "Bearer \(shop.token)")
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.headers.add(name: "Idempotency-Key", value: "h2-\(run)-\(stream)-\(index)")
                        request.body = .bytes(ByteBuffer(string: APIBench.body))
                        let begin = Bench.now()
                        do {
                            let response = try await client.execute(request, timeout: .seconds(10))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            if response.status != .created { failures += 1 }
                            version = "\(response.version)"
                        } catch {
                            failures += 1
                        }
                        _ = latency.record(Bench.now() - begin)
                    }
                    return (latency, failures, version)
                }
            }
            var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000_000)
            var failures = 0
            var version = "?"
            for await (own, failed, seen) in group {
                latency.add(own)
                failures += failed
                if seen != "?" { version = seen }
            }
            return (latency, failures, version)
        }
        let elapsed = Double(Bench.now() - started) / 1e9
        let clientCPU = Bench.ownCPUSeconds() - clientBefore
        try? await client.shutdown()
        let orders = try APIBench.count(shop) - ordersBefore
        let cpu = Bench.cpuSeconds(of: shop.daemon.pid) - cpuBefore
        return Run(
            perSecond: Double(orders) / elapsed, latency: outcome.0, cpuPerOrder: cpu / Double(max(1, orders)),
            failures: outcome.1, version: outcome.2, clientCPUPerOrder: clientCPU / Double(max(1, orders)))
    }
}
