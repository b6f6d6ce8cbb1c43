import Foundation
import PizzaTesting

/// What the kitchen's board pages and the order API's event readers cost: `order.create` at 16 clients with 50 board
/// pages connected to `/board/events` (each reading every event, as a browser does), then with 25 pages and 25
/// `GET /v1/events` readers (a kitchen device's token, plain HTTP on loopback) sharing the one fan-out, against none,
/// back to back, and the daemon's memory with them. `pizzabench board`.
enum BoardBench {
    /// A page: a connection to the board's event stream that reads everything and keeps nothing.
    final class Page: @unchecked Sendable {
        private let descriptor: Int32
        private let done = DispatchSemaphore(value: 0)
        private(set) var bytes = 0

        init(port: Int, request: String = "GET /board/events HTTP/1.1\r\nHost: kitchen\r\n\r\n") throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                throw BenchError("cannot connect to the board: \(String(cString: strerror(errno)))")
            }
            _ = Array(request.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            let thread = Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { break }
                    bytes += count
                }
                done.signal()
            }
            thread.stackSize = 256 << 10
            thread.start()
        }

        /// Whether the daemon ended the stream (a reader dropped) before the benchmark closed it.
        var ended: Bool {
            guard done.wait(timeout: .now()) == .success else { return false }
            done.signal()  // kept for close()
            return true
        }

        func close() {
            shutdown(descriptor, Int32(SHUT_RDWR))
            done.wait()
            Glibc.close(descriptor)
        }
    }

    static func report(pizzad: String, work: String, seconds: Double, rounds: Int) throws -> Bool {
        print(
            "board pages: order.create from 16 clients for \(Bench.format(seconds, 0)) s with no reader, with 50 pages")
        print("on /board/events, and with 25 pages and 25 /v1/events readers, back to back; RSS after each run")
        var rows: [[String]] = []
        var ratios: [Double] = []
        var mixedRatios: [Double] = []
        var perPage: [Double] = []
        for round in 1...rounds {
            var rates: [String: Double] = [:]
            // Each round in another order (rotated by the round): no configuration always runs first or last.
            let configurations = [("none", 0, 0), ("50 pages", 50, 0), ("25 pages + 25 /v1/events", 25, 25)]
            let rotated = (0..<3).map { configurations[($0 + round - 1) % 3] }
            for (label, pages, readers) in rotated {
                let directory = work + "/board-\(round)-\(pages)-\(readers)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let port = 20_000 + Int.random(in: 0..<20_000)
                let daemon = try PizzadProcess.bench(
                    binary: pizzad, directory: directory,
                    // One kitchen device for all its readers: its rate must admit their 25 requests at once.
                    config: "board:\n  listen: 127.0.0.1:\(port)\napi:\n  listen: 127.0.0.1:\(port + 1)\n"
                        + "  requestsPerSecond: 1000\n")
                defer { _ = try? daemon.stop() }
                let before = Bench.statusMiB(of: daemon.pid, "VmRSS")
                var connected = try (0..<pages).map { _ in try Page(port: port) }
                if readers > 0 {
                    let token = try kitchenToken(pizzad: pizzad, daemon: daemon)
                    let request =
                        "GET /v1/events HTTP/1.1\r\nHost: kitchen\r\nAuthorization: Bearer \(token)\r\n"
                        + "Accept: text/event-stream\r\n\r\n"
                    connected += try (0..<readers).map { _ in try Page(port: port + 1, request: request) }
                }
                Thread.sleep(forTimeInterval: 0.5)
                let withPages = Bench.statusMiB(of: daemon.pid, "VmRSS")
                let result = try Load.create(daemon: daemon, clients: 16, seconds: seconds)
                let after = Bench.statusMiB(of: daemon.pid, "VmRSS")
                let read = connected.reduce(0) { $0 + $1.bytes }
                // A reader refused (401, 429) reads a problem and nothing more: the run would not be the load it says.
                let starved = connected.filter { $0.bytes < 64 << 10 }.count
                guard starved == 0 else {
                    throw BenchError("\(starved) of \(connected.count) readers read under 64 KiB with \(label)")
                }
                // Nor may the daemon have dropped one on the way (a dropped reader costs nothing after, and would
                // raise the ratio): every reader still connected, each having read nearly what the most did.
                // Pages and /v1/events readers are compared each with their own kind (their events differ in size).
                for group in [connected.prefix(pages), connected.dropFirst(pages)] where !group.isEmpty {
                    let most = group.map(\.bytes).max() ?? 0
                    let dropped = group.filter { $0.ended || Double($0.bytes) < 0.9 * Double(most) }.count
                    guard dropped == 0 else {
                        throw BenchError(
                            "\(dropped) of \(group.count) readers were dropped or fell behind with \(label) "
                                + "(most read \(most) bytes)")
                    }
                }
                for page in connected { page.close() }
                rates[label] = result.perSecond
                if readers == 0, pages > 0 { perPage.append((withPages - before) * 1024 / Double(pages)) }
                rows.append([
                    "\(round)", label, Bench.format(result.perSecond, 0), us(result.latency.valueAtPercentile(99)),
                    Bench.format(result.daemonCPUMicrosPerOperation, 0),
                    Bench.format(after, 1),
                    connected.isEmpty ? "" : Bench.format(Double(read) / 1_048_576 / Double(connected.count), 1),
                ])
            }
            ratios.append((rates["50 pages"] ?? 0) / (rates["none"] ?? 1))
            mixedRatios.append((rates["25 pages + 25 /v1/events"] ?? 0) / (rates["none"] ?? 1))
        }
        Bench.table(
            ["round", "readers", "orders/s", "p99", "pizzad CPU µs/order", "RSS MiB after", "MiB each reader read"],
            rows)
        let mixed = Bench.median(mixedRatios)
        print(
            "event readers: 25 pages + 25 /v1/events / none \(mixedRatios.map { Bench.format($0, 2) }.joined(separator: ", "))"
                + " (median \(Bench.format(mixed, 2)), the order API's target ≥ 0.80): "
                + (mixed >= 0.8 ? "held" : "NOT HELD"))
        let ratio = Bench.median(ratios)
        let held = ratio >= 0.95
        print(
            "board pages: 50 pages/none \(ratios.map { Bench.format($0, 2) }.joined(separator: ", ")) (median "
                + "\(Bench.format(ratio, 2)), target ≥ 0.95); an idle page costs "
                + "\(perPage.map { Bench.format($0, 0) }.joined(separator: ", ")) KiB of RSS: "
                + (held ? "held" : "NOT HELD"))
        return held && mixed >= 0.8
    }

    /// A kitchen device's token (its role may read `/v1/events`), added with `pizzactl device add`.
    static func kitchenToken(pizzad: String, daemon: PizzadProcess) throws -> String {
        let pizzactl = (pizzad as NSString).deletingLastPathComponent + "/pizzactl"
        let added = try ChildProcess.run(
            pizzactl, ["--socket", daemon.socket, "device", "add", "bench-kitchen", "--role", "kitchen"])
        guard added.status == 0, let token = added.output.split(separator: "\n").last else {
            throw BenchError("device add: \(added.output)")
        }
        return String(token)
    }
}
