import DaemonHarness
import Foundation
import PizzaTesting
import Testing

@Suite("systemd integration and installation", .serialized, .offThePool)
struct SystemdTests {
    @Test("sd_notify: READY=1, STATUS=, WATCHDOG=1 pings and STOPPING=1, all from pizzad's own pid")
    func notify() throws {
        let directoryFolder = try TemporaryFolder("pizzad-notify")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        let listener = try NotifyListener(path: directory + "/notify.sock")
        let daemon = try PizzadProcess(
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"], directory: directory)
        let early = listener.collect(timeout: 5) { messages in
            messages.filter { $0.message.contains("WATCHDOG=1") }.count >= 2
        }
        let ready = try #require(early.first { $0.message.contains("READY=1") })
        #expect(ready.pid == daemon.pid)
        #expect(ready.message.contains("STATUS=serving"), "\(ready.message)")
        #expect(early.filter { $0.message.contains("WATCHDOG=1") }.count >= 2)
        #expect(early.allSatisfy { $0.pid == daemon.pid })
        // The status line follows what the kitchen does.
        try #require(daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        let status = listener.collect(timeout: 3) { messages in messages.contains { $0.message.contains("1 placed") } }
        #expect(status.contains { $0.message.contains("STATUS=serving; 1 placed") }, "\(status.map(\.message))")
        #expect(try daemon.stop(SIGTERM) == 0)
        let late = listener.collect(timeout: 2) { messages in messages.contains { $0.message.contains("STOPPING=1") } }
        let stopping = try #require(late.first { $0.message.contains("STOPPING=1") })
        #expect(stopping.pid == daemon.pid)
    }

    @Test("a schema upgrade is announced to systemd (STATUS=, EXTEND_TIMEOUT_USEC=) before READY=1, and logged")
    func upgradeAnnounced() throws {
        let directoryFolder = try TemporaryFolder("pizzad-upgrade")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        // An older pizzad's database (0.4.0, schema 6) with its orders, where the daemon below opens it.
        try OldShop.database(at: directory + "/pizzad.sqlite")

        let listener = try NotifyListener(path: directory + "/notify.sock")
        let daemon = try PizzadProcess(environment: ["NOTIFY_SOCKET": listener.path], directory: directory)
        let messages = listener.collect(timeout: 5) { messages in messages.contains { $0.message.contains("READY=1") } }
        let upgrade = try #require(messages.firstIndex { $0.message.contains("EXTEND_TIMEOUT_USEC=") }, "\(messages)")
        #expect(
            messages[upgrade].message.contains("STATUS=upgrading the database schema: 0007_whole_order.sql")
        )
        #expect(upgrade < (messages.firstIndex { $0.message.contains("READY=1") } ?? 0))
        #expect(daemon.output.contains("upgrading the database schema"))
        #expect(try daemon.pizzactl(["order", "list"]).stdout.contains("placed"))
        #expect(try daemon.stop(SIGTERM) == 0)
    }

    @Test("a notify socket nobody reads never stalls the daemon: watchdog pings that find no room are dropped")
    func unreadNotifySocket() async throws {
        try await withMachine(heavy: false) {
            // A datagram socket that is bound and never read: its queue fills after a few pings.
            let path = MemoryFolder.temporary + "pizzad-deaf-" + UUID().uuidString.prefix(8)
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            defer {
                close(fd)
                unlink(path)
            }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(bound == 0)
            // Pings every 50 ms: far more than the queue holds within the second below.
            let daemon = try PizzadProcess(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"])
            usleep(1_000_000)
            let started = Stopwatch()
            for _ in 0..<5 {
                #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
                #expect(try daemon.pizzactl(["order", "list"]).status == 0)
            }
            #expect(started.seconds < (sanitizerIsActive ? 60 : 10))
            #expect(try daemon.stop() == 0)
        }
    }

    @Test("SIGHUP is announced with RELOADING=1 and READY=1")
    func reloadNotification() throws {
        let directoryFolder = try TemporaryFolder("pizzad-notify")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        let listener = try NotifyListener(path: directory + "/notify.sock")
        let daemon = try PizzadProcess(environment: ["NOTIFY_SOCKET": listener.path], directory: directory)
        _ = listener.collect(timeout: 3) { messages in messages.contains { $0.message.contains("READY=1") } }
        kill(daemon.pid, SIGHUP)
        let messages = listener.collect(timeout: 5) { messages in
            messages.contains { $0.message.contains("RELOADING=1") }
                && messages.last?.message.contains("READY=1") == true
        }
        #expect(messages.contains { $0.message.contains("RELOADING=1") && $0.message.contains("MONOTONIC_USEC=") })
        #expect(messages.last?.message == "READY=1")
    }

    @Test(
        "under systemd-socket-activate pizzad serves on the passed socket",
        .enabled(if: Binaries.available("systemd-socket-activate")))
    func socketActivation() throws {
        let directoryFolder = try TemporaryFolder("pizzad-activate")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        let socket = directory + "/activated.sock"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "systemd-socket-activate", "--listen=\(socket)", "--fdname=pizzad.sock", Binaries.pizzad,
            "--database", directory + "/pizzad.sqlite", "--socket", directory + "/unused.sock",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let log = Pipe()
        process.standardError = log
        process.standardOutput = log
        try process.runWithCleanSignals()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // The socket exists before pizzad runs; the first connection starts it.
        let deadline = TimeLimit(seconds: 5)
        while !FileManager.default.fileExists(atPath: socket), deadline.remains { usleep(20_000) }
        let status = try run(Binaries.pizzactl, ["--socket", socket, "--timeout", "20", "order", "new", "cheese"])
        #expect(status.status == 0, "\(status)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/unused.sock"), "pizzad bound its own socket")
        kill(process.processIdentifier, SIGTERM)
        let exitStatus = waitForExit(process)
        let output = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(output.contains("serving on the socket passed by systemd"), "\(output)")
        #expect(exitStatus == 0)
    }

    @Test("under systemd (JOURNAL_STREAM set) log lines carry syslog priorities and no timestamp")
    func journalLogs() throws {
        let daemon = try PizzadProcess(environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(try daemon.stop() == 0)
        let lines = daemon.output.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("<6>") || $0.hasPrefix("<5>") || $0.hasPrefix("<4>") }, "\(lines)")
        #expect(!daemon.output.contains("INFO"))
        let plain = try PizzadProcess()
        #expect(plain.output.contains(" INFO "))
    }

    @Test("under systemd a configuration refused at start is logged at priority err or above, naming key and file")
    func refusedStartIsAnError() throws {
        let folder = try TemporaryFolder("pizzad-refused")
        let config = folder.path + "/pizzad.yaml"
        try Data("log:\n  level: loud\n".utf8).write(to: URL(fileURLWithPath: config))
        let started = try run(
            BuiltPrograms.pizzad, ["--config", config, "--database", folder.path + "/db.sqlite"],
            environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(started.status == 78, "\(started)")
        let lines = (started.stdout + started.stderr).split(separator: "\n").filter { $0.contains("log.level") }
        #expect(!lines.isEmpty, "\(started)")
        // sd-daemon(3): <0> to <3> are emerg, alert, crit and err, which journalctl -p err shows.
        #expect(lines.allSatisfy { ["<0>", "<1>", "<2>", "<3>"].contains(String($0.prefix(3))) }, "\(lines)")
        #expect(lines.allSatisfy { $0.contains(config) }, "\(lines)")
    }

    @Test(
        "the unit scores 1.0 or lower in systemd-analyze security",
        .enabled(if: Binaries.available("systemd-analyze")))
    func hardening() throws {
        let unit = Binaries.repository + "/systemd/pizzad.service"
        let result = try run("systemd-analyze", ["security", "--offline=true", "--threshold=10", unit])
        #expect(result.status == 0, "\(result)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = line.split(separator: " ").compactMap { Double($0) }.first
        #expect((score ?? 10) <= 1.0, "\(line)")
    }

    @Test(
        "with the replication or the outbox drop-in, only the network opens: the rest of the hardening stays",
        .enabled(if: Binaries.available("systemd-analyze")),
        arguments: ["pizzad-replication.conf", "pizzad-outbox.conf"])
    func networkDropIn(_ dropIn: String) throws {
        let temporary = try TemporaryFolder("pizzad-dropin")
        defer { temporary.remove() }
        let folder = temporary.path
        try FileManager.default.createDirectory(atPath: folder + "/pizzad.service.d", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Binaries.repository + "/systemd/pizzad.service", toPath: folder + "/pizzad.service")
        try FileManager.default.copyItem(
            atPath: Binaries.repository + "/systemd/" + dropIn, toPath: folder + "/pizzad.service.d/" + dropIn)
        let result = try run(
            // --threshold counts in tenths of the printed exposure: 15 is 1.5.
            "systemd-analyze", ["security", "--offline=true", "--threshold=15", folder + "/pizzad.service"],
            environment: ["SYSTEMD_UNIT_PATH": folder + ":"])
        #expect(result.status == 0, "\(result)")
        let failed = result.stdout.split(separator: "\n").filter { $0.hasPrefix("✗") }.map {
            $0.split(separator: " ")[1]
        }
        // What the drop-in opens, and nothing else than the unit alone has open.
        for opened in ["PrivateNetwork=", "RestrictAddressFamilies=~AF_(INET|INET6)", "IPAddressDeny="] {
            #expect(failed.contains(Substring(opened)), "\(opened) not opened: \(result.stdout)")
        }
        let alone = try run(
            "systemd-analyze",
            ["security", "--offline=true", "--threshold=10", Binaries.repository + "/systemd/pizzad.service"])
        let failedAlone = Set(
            alone.stdout.split(separator: "\n").filter { $0.hasPrefix("✗") }.map { $0.split(separator: " ")[1] })
        #expect(
            Set(failed).subtracting(failedAlone) == [
                "PrivateNetwork=", "RestrictAddressFamilies=~AF_(INET|INET6)", "IPAddressDeny=",
            ],
            "\(result.stdout)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        #expect((line.split(separator: " ").compactMap { Double($0) }.first ?? 10) <= 1.5, "\(line)")
    }

    @Test(
        "the package's layout: systemd-analyze verify passes, and pizzad in /usr/sbin runs on the files the package installs",
        .enabled(if: Binaries.available("systemd-analyze")))
    func install() throws {
        let stageFolder = try TemporaryFolder("pizzad-stage")
        defer { stageFolder.remove() }
        let stage = stageFolder.path
        // The files debian/pizzad.install takes from the tree as they are (source and folder on one line); what
        // debian/rules builds is staged here from this build: the binaries, and the units as they are in systemd/.
        let list = try String(contentsOfFile: Binaries.repository + "/debian/pizzad.install", encoding: .utf8)
        for line in list.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2 else { continue }
            let copied = try run(
                "/bin/sh", ["-c", "mkdir -p \"$DEST\" && cp \(fields[0]) \"$DEST\""],
                environment: ["DEST": stage + "/" + fields[1]], directory: Binaries.repository)
            #expect(copied.status == 0, "debian/pizzad.install: \(line): \(copied)")
        }
        for (source, destination) in [
            (Binaries.pizzad, "/usr/sbin/pizzad"), (Binaries.pizzactl, "/usr/bin/pizzactl"),
            (Binaries.repository + "/systemd/pizzad.service", "/lib/systemd/system/pizzad.service"),
            (Binaries.repository + "/systemd/pizzad.socket", "/lib/systemd/system/pizzad.socket"),
            (Binaries.repository + "/systemd/pizzad-metrics.socket", "/lib/systemd/system/pizzad-metrics.socket"),
        ] {
            try FileManager.default.createDirectory(
                atPath: stage + (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source, toPath: stage + destination)
        }
        for file in [
            "/etc/pizzad/pizzad.yaml", "/usr/share/pizzad/migrations/0001_initial.sql",
            "/usr/share/pizzad/migrations/central/0001_central.sql", "/usr/share/pizzad/monitoring/pizzad-alerts.yml",
            "/usr/share/pizzad/monitoring/pizzad-dashboard.json",
        ] {
            #expect(FileManager.default.fileExists(atPath: stage + file), "\(file) missing")
        }

        // systemd-analyze verify --root needs the host's standard units and /bin/kill inside the root.
        try FileManager.default.createDirectory(atPath: stage + "/usr/lib/systemd", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: stage + "/usr/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/lib/systemd/system", toPath: stage + "/usr/lib/systemd/system")
        try FileManager.default.copyItem(atPath: "/usr/bin/kill", toPath: stage + "/usr/bin/kill")
        try FileManager.default.createSymbolicLink(atPath: stage + "/bin", withDestinationPath: "usr/bin")
        let verify = try run(
            "systemd-analyze",
            [
                // The man pages Documentation= names are built with the package; the booted test finds them installed.
                "verify", "--man=no", "--root=\(stage)", stage + "/lib/systemd/system/pizzad.service",
                stage + "/lib/systemd/system/pizzad.socket", stage + "/lib/systemd/system/pizzad-metrics.socket",
            ])
        #expect(verify.status == 0, "\(verify)")

        // The installed binary, on the installed configuration, finds the installed migrations.
        let work = stage + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: stage + "/usr/sbin/pizzad")
        process.arguments = [
            "--config", stage + "/etc/pizzad/pizzad.yaml", "--database", work + "/pizzad.sqlite",
            "--socket", work + "/pizzad.sock",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: work)
        let log = Pipe()
        process.standardError = log
        try process.runWithCleanSignals()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let deadline = TimeLimit(seconds: 10)
        while (try? RawConnection(path: work + "/pizzad.sock")) == nil, deadline.remains { usleep(20_000) }
        let order = try run(
            stage + "/usr/bin/pizzactl", ["--socket", work + "/pizzad.sock", "order", "new", "seafood"])
        #expect(order.status == 0, "\(order)")
        kill(process.processIdentifier, SIGTERM)
        let exitStatus = waitForExit(process)
        let output = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(
            output.contains("migrations=\(stage)/usr/sbin/../share/pizzad/migrations")
                || output.contains("migrations=\(stage)/usr/share/pizzad/migrations"), "\(output)")
        #expect(output.contains("config=\(stage)/etc/pizzad/pizzad.yaml"))
        #expect(exitStatus == 0)
    }
}
