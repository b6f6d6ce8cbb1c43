import Foundation
import Glibc
import PizzaCore
import PizzaTesting

/// What a till feels while the shop's network attacks pizzad (`pizzabench hostile`): one till ordering over
/// HTTP/1.1 and TLS on one keep-alive connection (wrk, each order its own key), first with nothing else, then during
/// each attack in turn: the HTTP/2 floods (h2flood.py, looped), 1,100 idle connections from another address, 200
/// slowloris connections, and a client trying wrong tokens as fast as it can. Its p99 beside the quiet run's, each
/// in the same run; the target is a p99 under 50 ms during every attack, and no order refused.
enum HostileBench {
    /// The repository (this file is Sources/pizzabench/HostileBench.swift in it).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// An attack running beside the till: started, then stopped after the till's run.
    struct Attack {
        let name: String
        let start: @Sendable (APIBench.Shop) throws -> @Sendable () -> Void
    }

    /// Runs `body` over and over on a thread of its own until stopped.
    static func looping(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let stop = Locked(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            while !stop.withLock({ $0 }) { body() }
            done.signal()
        }.start()
        return {
            stop.withLock { $0 = true }
            done.wait()
        }
    }

    static var attacks: [Attack] {
        let python = repository + "/.cache/h2/bin/python"
        let flood = repository + "/Tests/PizzaDaemonTests/Hostile/h2flood.py"
        return [
            Attack(name: "HTTP/2 floods, looped (rapid reset, CONTINUATION, SETTINGS, PING, streams, headers)") {
                shop in
                guard FileManager.default.isExecutableFile(atPath: python) else {
                    throw BenchError("h2 is not installed in .cache/h2 (.ci/run installs it)")
                }
                let attacks = ["rapid_reset", "continuation", "settings", "ping", "streams", "headers"]
                let next = Locked(0)
                return looping {
                    let attack = next.withLock { index in
                        defer { index += 1 }
                        return attacks[index % attacks.count]
                    }
                    _ = try? ChildProcess.run(python, [flood, String(shop.port), "pzd_attacker", attack], timeout: 60)
                }
            },
            Attack(name: "1,100 idle connections from another address") { shop in
                let held = (0..<1100).compactMap { _ in LoopbackTCP.connect(port: shop.port, from: "127.0.0.2") }
                return { held.forEach { close($0) } }
            },
            Attack(name: "200 slowloris connections (a byte of a TLS hello each)") { shop in
                return looping {
                    let slow = (0..<200).compactMap { _ in LoopbackTCP.connect(port: shop.port, from: "127.0.0.3") }
                    for fd in slow { _ = send(fd, "\u{16}", 1, Int32(MSG_NOSIGNAL)) }
                    Thread.sleep(forTimeInterval: 5)
                    slow.forEach { close($0) }
                }
            },
            Attack(name: "wrong tokens as fast as one client can") { shop in
                let attempt = Locked(0)
                return looping {
                    let index = attempt.withLock { value in
                        value += 1
                        return value
                    }
                    _ = try? ChildProcess.run(
                        "/usr/bin/curl",
                        [
                            "-sk", "-o", "/dev/null", "https://127.0.0.1:\(shop.port)/v1/menu", "-H",
                            "Authorization: Bearer pzd_wrong-\(index)",
                        ], timeout: 10)
                }
            },
        ]
    }

    static func report(pizzad: String, work: String, seconds: Double) async throws -> Bool {
        print("hostile clients: one till's orders over HTTP/1.1 and TLS (wrk, 1 connection) alone, then during each")
        print("attack in turn, in one run (target: its p99 under 50 ms during every attack, no order refused)")
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = min(limit.rlim_max, 8192)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let shop = try APIBench.start(pizzad: pizzad, directory: work)
        defer { _ = try? shop.daemon.stop() }
        var rows: [[String]] = []
        var held = true
        Bench.settleDisk()
        let quiet = try APIBench.wrk(shop, connections: 1, seconds: seconds, keys: "unique", work: work)
        rows.append(["none", Bench.format(quiet.perSecond, 0), quiet.p50, quiet.p99, "\(quiet.failed)"])
        held = held && quiet.failed == 0
        for attack in attacks {
            let stop = try attack.start(shop)
            let till = try APIBench.wrk(shop, connections: 1, seconds: seconds, keys: "unique", work: work)
            stop()
            let alive = shop.daemon.isRunning
            rows.append([
                attack.name + (alive ? "" : " (pizzad exited)"), Bench.format(till.perSecond, 0), till.p50, till.p99,
                "\(till.failed)",
            ])
            let p99 = APIBench.milliseconds(till.p99) ?? .infinity
            held = held && alive && till.failed == 0 && p99 < 50
            Bench.settleDisk()
        }
        Bench.table(["attack", "till orders/s", "p50", "p99", "not 2xx"], rows)
        print(
            "hostile clients: the till's p99 under 50 ms during every attack, nothing refused: "
                + (held ? "held" : "NOT HELD"))
        return held
    }
}
