import Foundation
import PizzaTesting

/// What the kitchen's board pages cost: `order.create` at 16 clients with 50 board pages connected to
/// `/board/events` (each reading every event, as a browser does) against none, back to back, and the daemon's
/// memory with them. `pizzabench --only board`.
enum BoardBench {
    /// A page: a connection to the board's event stream that reads everything and keeps nothing.
    final class Page: @unchecked Sendable {
        private let descriptor: Int32
        private let done = DispatchSemaphore(value: 0)
        private(set) var bytes = 0

        init(port: Int) throws {
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
            let request = Array("GET /board/events HTTP/1.1\r\nHost: kitchen\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
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

        func close() {
            shutdown(descriptor, Int32(SHUT_RDWR))
            done.wait()
            Glibc.close(descriptor)
        }
    }

    static func report(pizzad: String, work: String, seconds: Double, rounds: Int) throws -> Bool {
        print("board pages: order.create from 16 clients for \(Bench.format(seconds, 0)) s with none and with 50 pages")
        print("connected to /board/events, back to back; RSS after each run")
        var rows: [[String]] = []
        var ratios: [Double] = []
        var perPage: [Double] = []
        for round in 1...rounds {
            var rates: [Int: Double] = [:]
            var rss: [Int: Double] = [:]
            for pages in [0, 50] {
                let directory = work + "/board-\(round)-\(pages)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let port = 20_000 + Int.random(in: 0..<20_000)
                let daemon = try PizzadProcess.bench(
                    binary: pizzad, directory: directory, config: "board:\n  listen: 127.0.0.1:\(port)\n")
                defer { _ = try? daemon.stop() }
                let before = Bench.statusMiB(of: daemon.pid, "VmRSS")
                let open = try (0..<pages).map { _ in try Page(port: port) }
                Thread.sleep(forTimeInterval: 0.5)
                let withPages = Bench.statusMiB(of: daemon.pid, "VmRSS")
                let result = try Load.create(daemon: daemon, clients: 16, seconds: seconds)
                let after = Bench.statusMiB(of: daemon.pid, "VmRSS")
                let read = open.reduce(0) { $0 + $1.bytes }
                for page in open { page.close() }
                rates[pages] = result.perSecond
                rss[pages] = after
                if pages > 0 { perPage.append((withPages - before) * 1024 / Double(pages)) }
                rows.append([
                    "\(round)", "\(pages)", Bench.format(result.perSecond, 0), us(result.latency.valueAtPercentile(99)),
                    Bench.format(result.daemonCPU / Double(max(1, result.operations)) * 1e6, 0),
                    Bench.format(after, 1), pages > 0 ? Bench.format(Double(read) / 1_048_576 / Double(pages), 1) : "",
                ])
            }
            ratios.append((rates[50] ?? 0) / (rates[0] ?? 1))
        }
        Bench.table(
            ["round", "pages", "orders/s", "p99", "pizzad CPU µs/order", "RSS MiB after", "MiB each page read"], rows)
        let ratio = ratios.sorted()[ratios.count / 2]
        let held = ratio >= 0.95
        print(
            "board pages: 50 pages/none \(ratios.map { Bench.format($0, 2) }.joined(separator: ", ")) (median "
                + "\(Bench.format(ratio, 2)), target ≥ 0.95); an idle page costs "
                + "\(perPage.map { Bench.format($0, 0) }.joined(separator: ", ")) KiB of RSS: "
                + (held ? "held" : "NOT HELD"))
        return held
    }
}
