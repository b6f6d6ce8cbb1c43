import DaemonHarness
import Foundation
import PizzaTesting
import Testing

/// Tills on a lossy network, as a shop's Wi-Fi is: three tills, each in a network namespace of its own joined to this
/// host by a veth pair, reach pizzad through a fault-injecting TCP proxy of the tests' own
/// (`LossyNetwork/faulty_proxy.py`: delays, stalls, cuts and resets, before and after the request reaches pizzad).
/// Each till retries every order with the same `Idempotency-Key` until it gets an answer (`LossyNetwork/till.sh`).
/// The database must hold exactly the orders the tills meant, none twice, each audited to its till.
@Suite("Order API: tills on a lossy network", .serialized, .offThePool)
struct LossyTillsTests {
    static let tills = 3
    static let ordersPerTill = 15

    /// Whether this machine can make network namespaces (root, iproute2, a kernel that allows it).
    static let canMakeNamespaces: Bool = {
        guard getuid() == 0, Binaries.available("ip") else { return false }
        let probe = "pzt-probe-\(getpid())"
        guard (try? run("ip", ["netns", "add", probe]))?.status == 0 else { return false }
        _ = try? run("ip", ["netns", "delete", probe])
        return true
    }()

    /// The namespaces and links made for one run, removed again by ``remove()``.
    struct Hosts {
        let tag: String
        var namespaces: [String] { (1...LossyTillsTests.tills).map { "pzt-\(tag)-\($0)" } }

        /// Till `index`'s namespace, with `10.213.index.2`, reaching this host at `10.213.index.1`.
        func make() throws {
            Self.removeLeftovers()
            for (offset, namespace) in namespaces.enumerated() {
                let index = offset + 1
                let host = "pzh\(tag)\(index)"
                let till = "pzn\(tag)\(index)"
                for command in [
                    ["netns", "add", namespace], ["link", "add", host, "type", "veth", "peer", "name", till],
                    ["link", "set", till, "netns", namespace], ["addr", "add", "10.213.\(index).1/24", "dev", host],
                    ["link", "set", host, "up"],
                    ["-n", namespace, "addr", "add", "10.213.\(index).2/24", "dev", till],
                    ["-n", namespace, "link", "set", till, "up"], ["-n", namespace, "link", "set", "lo", "up"],
                ] {
                    let result = try run("ip", command)
                    guard result.status == 0 else {
                        throw HarnessError("ip \(command.joined(separator: " ")): \(result)")
                    }
                }
            }
        }

        /// What a test process killed before its `remove()` left: its host ends (`pzhTAGN`, holding `10.213.N.1`, so
        /// that this run's tills were routed to a dead link and gave up) and namespaces (`pzt-TAG-N`), for every tag
        /// that is not a running process's.
        static func removeLeftovers() {
            func alive(_ tag: Substring) -> Bool { Int32(tag).map { kill($0, 0) == 0 } ?? true }
            let links = (try? run("ip", ["-o", "link", "show"]))?.stdout ?? ""
            for line in links.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count > 1 else { continue }
                let name = fields[1].split(separator: "@").first.map { $0.trimmingCharacters(in: [":"]) } ?? ""
                guard name.hasPrefix("pzh"), name.count > 4 else { continue }
                if !alive(name.dropFirst(3).dropLast()) { _ = try? run("ip", ["link", "delete", name]) }
            }
            let namespaces = (try? run("ip", ["netns", "list"]))?.stdout ?? ""
            for line in namespaces.split(separator: "\n") {
                guard let name = line.split(separator: " ").first, name.hasPrefix("pzt-") else { continue }
                let parts = name.split(separator: "-")
                if parts.count == 3, !alive(parts[1]) { _ = try? run("ip", ["netns", "delete", String(name)]) }
            }
        }

        func remove() {
            for (offset, namespace) in namespaces.enumerated() {
                _ = try? run("ip", ["link", "delete", "pzh\(tag)\(offset + 1)"])
                _ = try? run("ip", ["netns", "delete", namespace])
            }
        }
    }

    @Test(
        "three tills retrying through delays, stalls, cuts and resets: every order once, each audited to its till",
        .enabled(if: canMakeNamespaces, "cannot make network namespaces here (needs root and iproute2)"))
    func lossyTills() throws {
        let folder = try TemporaryFolder("pizzad-lossy")
        defer { folder.remove() }
        let certificate = folder.path + "/api.pem"
        let key = folder.path + "/api.key"
        let addresses = (1...Self.tills).map { "IP:10.213.\($0).1" }.joined(separator: ",")
        let made = try run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=pizzad", "-addext", "subjectAltName=IP:127.0.0.1,\(addresses)", "-keyout", key, "-out",
                certificate,
            ])
        try #require(made.status == 0, "\(made)")
        let port = try freeLoopbackPort()
        let daemon = try PizzadProcess(
            config: """
                api:
                  listen: 127.0.0.1:\(port)
                  tls:
                    certificate: \(certificate)
                    key: \(key)
                """, directory: folder.path)
        var tokens: [String] = []
        for index in 1...Self.tills {
            let added = try daemon.pizzactl(["device", "add", "till-\(index)", "--role", "till"])
            tokens.append(try #require(added.stdout.split(separator: "\n").last.map(String.init), "\(added)"))
        }
        let hosts = Hosts(tag: String(getpid() % 100_000))
        defer { hosts.remove() }
        try hosts.make()

        let proxyPort = try freeLoopbackPort()
        let lossy = Binaries.repository + "/Tests/PizzaDaemonTests/LossyNetwork"
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        proxy.arguments =
            [lossy + "/faulty_proxy.py", "20261126", String(port)]
            + (1...Self.tills).map { "10.213.\($0).1:\(proxyPort)" }
        let faults = Pipe()
        proxy.standardOutput = faults
        try proxy.runWithCleanSignals()
        defer { proxy.terminate() }
        let ready = String(decoding: faults.fileHandleForReading.availableData, as: UTF8.self)
        try #require(ready.hasPrefix("ready"), "the proxy did not start: \(ready)")

        let clock = Stopwatch()
        var running: [(Process, Pipe)] = []
        for (offset, namespace) in hosts.namespaces.enumerated() {
            let till = Process()
            till.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            if !FileManager.default.fileExists(atPath: "/usr/sbin/ip") {
                till.executableURL = URL(fileURLWithPath: "/sbin/ip")
            }
            till.arguments = [
                "netns", "exec", namespace, "/bin/bash", lossy + "/till.sh", "till-\(offset + 1)", tokens[offset],
                "https://10.213.\(offset + 1).1:\(proxyPort)", certificate, String(Self.ordersPerTill),
            ]
            let output = Pipe()
            till.standardOutput = output
            try till.runWithCleanSignals()
            running.append((till, output))
        }
        var attempts = 0
        for (till, output) in running {
            let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            till.waitUntilExit()
            #expect(till.terminationStatus == 0, "a till gave up: \(lines)")
            attempts += lines.split(separator: "\n").compactMap { Int($0.split(separator: " ").last ?? "") }
                .reduce(0, +)
        }
        proxy.terminate()
        proxy.waitUntilExit()
        let drawn = String(decoding: faults.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var counts: [String: Int] = [:]
        for fault in drawn.split(separator: "\n") { counts[String(fault), default: 0] += 1 }
        print(
            "lossy tills: \(Self.tills * Self.ordersPerTill) orders in \(attempts) attempts, \(String(format: "%.1f", clock.seconds)) s; "
                + "faults: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        #expect((counts["cut-after"] ?? 0) + (counts["reset-after"] ?? 0) > 0, "no answer was lost after the write")

        // Exactly the orders the tills meant: each once, made by its own till.
        let rows = try run(
            "sqlite3",
            [
                daemon.database,
                """
                SELECT c.customer, a.actor_device, count(*) OVER (PARTITION BY c.customer)
                FROM carts c JOIN audit_log a ON a.order_id = c.id AND a.action = 'created' ORDER BY c.id
                """,
            ]
        ).stdout.split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        #expect(rows.count == Self.tills * Self.ordersPerTill, "\(rows.count) orders")
        for row in rows where row.count == 3 {
            #expect(row[2] == "1", "\(row[0]) is in the database \(row[2]) times")
            #expect(row[0].hasPrefix(row[1] + " order "), "\(row[0]) was made by \(row[1])")
        }
        let meant = Set(
            (1...Self.tills).flatMap { till in (1...Self.ordersPerTill).map { "till-\(till) order \($0)" } })
        #expect(Set(rows.compactMap(\.first)) == meant)
        #expect(try daemon.pizzactl(["audit", "verify"]).status == 0)
    }
}
