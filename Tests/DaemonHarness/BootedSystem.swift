import Foundation
import PizzaTesting

/// A Debian root file system booted with `systemd-nspawn -b`: a real systemd as PID 1, driven with `nsenter`.
///
/// The root file system is made once with `debootstrap` and cached in `.cache/nspawn/` (git-ignored), under a name
/// that changes with its recipe (`scripts/nspawn-root`); every test boots a copy (in `/dev/shm` when there is room).
/// What this VM needs (found on a first boot): plain `systemd-nspawn -b` fails with "Failed to open system bus" (no
/// systemd on the host), so it runs with `--register=no --keep-unit`, and `--private-network` keeps the container off
/// the host's network. With no machined on the host, `systemctl -M` cannot reach it; `nsenter -t <its PID 1> -a` can.
public final class BootedSystem {
    public static var cache: String { Binaries.repository + "/.cache/nspawn" }

    /// Why a booted systemd cannot be had here, or nil.
    public static var unavailableReason: String? {
        guard getuid() == 0 else { return "not root (systemd-nspawn needs root)" }
        for program in ["systemd-nspawn", "debootstrap", "nsenter", "flock"] where !Binaries.available(program) {
            return "\(program) is missing (Debian: systemd-container, debootstrap, util-linux)"
        }
        guard FileManager.default.fileExists(atPath: "/sys/fs/cgroup") else { return "no cgroup file system" }
        return nil
    }

    /// The cached root file system: `scripts/nspawn-root`, which holds the recipe (suite and packages), makes it with
    /// debootstrap if missing (a few minutes, downloading ~60 MB) or waits while `.ci/run`'s early start of it does.
    public static func rootFileSystem() throws -> String {
        let made = try run(Binaries.repository + "/scripts/nspawn-root", [], timeout: 1200)
        let path = made.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard made.status == 0, FileManager.default.fileExists(atPath: path + "/usr/lib/systemd/systemd") else {
            throw HarnessError("scripts/nspawn-root failed:\n\(made.stdout.suffix(3000))\n\(made.stderr.suffix(3000))")
        }
        return path
    }

    public let root: String
    private let nspawn: Process
    private let consoleLog: String
    /// The container's PID 1 (systemd), seen from the host.
    private(set) var leader: Int32 = 0

    /// Copies the cached root file system, lets `prepare` install into it, and boots it; returns once systemd
    /// reports the system running (or degraded).
    public init(prepare: (_ root: String) throws -> Void) throws {
        let base = try Self.rootFileSystem()
        // In memory when there is room: the copy (261 MB) and the two packages' installs are writes the disk would
        // charge CPU for (`MemoryFolder`), and the container is thrown away after the test.
        root =
            (MemoryFolder.path(free: 3 << 30).map { $0 + "/" } ?? NSTemporaryDirectory()) + "pizzad-nspawn-"
            + UUID().uuidString.prefix(8)
        let copied = try run("cp", ["-a", "--reflink=auto", base, root], timeout: 300)
        guard copied.status == 0 else { throw HarnessError("cp: \(copied)") }
        try prepare(root)
        consoleLog = root + ".console"
        _ = FileManager.default.createFile(atPath: consoleLog, contents: nil)
        let console = try FileHandle(forWritingTo: URL(fileURLWithPath: consoleLog))
        defer { try? console.close() }
        nspawn = Process()
        nspawn.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-nspawn")
        nspawn.arguments = [
            "-q", "-D", root, "-b", "--register=no", "--keep-unit", "--private-network", "--console=pipe",
        ]
        nspawn.standardOutput = console
        nspawn.standardError = console
        nspawn.standardInput = FileHandle.nullDevice
        try nspawn.runWithCleanSignals()
        let deadline = TimeLimit(seconds: 60)
        while leader == 0 {
            guard nspawn.isRunning else {
                throw HarnessError("systemd-nspawn exited \(nspawn.terminationStatus):\n\(console)")
            }
            guard deadline.remains else {
                throw HarnessError("no systemd in the container after 60 s:\n\(self.console)")
            }
            leader = Self.child(of: nspawn.processIdentifier, named: "systemd") ?? 0
            usleep(20_000)
        }
        // systemd's bus socket appears a moment after PID 1 starts; until then systemctl "Failed to connect to bus".
        var state = try sh("systemctl is-system-running --wait", timeout: 120)
        while state.stderr.contains("Failed to connect to bus"), deadline.remains {
            usleep(100_000)
            state = try sh("systemctl is-system-running --wait", timeout: 120)
        }
        guard ["running", "degraded"].contains(state.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("the container did not finish booting: \(state)\n\(self.console)")
        }
    }

    /// What the container printed on its console.
    public var console: String { (try? String(contentsOfFile: consoleLog, encoding: .utf8)) ?? "" }

    /// Runs a program inside, as root or as `user` (with that user's groups from the container's /etc/group).
    @discardableResult
    public func exec(_ arguments: [String], user: String? = nil, input: String? = nil, timeout: Double = 120) throws
        -> CommandResult
    {
        var command = ["-t", "\(leader)", "-a", "--"]
        if let user { command += ["setpriv", "--reuid=\(user)", "--regid=\(user)", "--init-groups", "--reset-env"] }
        command += arguments
        return try DaemonHarness.run(
            "nsenter", command,
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "SYSTEMD_PAGER": ""],
            input: input, timeout: timeout)
    }

    /// Runs a shell command line inside, as root or as `user`.
    @discardableResult
    public func sh(_ script: String, user: String? = nil, timeout: Double = 120) throws -> CommandResult {
        try exec(["/bin/sh", "-c", script], user: user, timeout: timeout)
    }

    /// Powers the container off and removes its copy of the root file system.
    public func shutdown() {
        if nspawn.isRunning {
            _ = try? sh("systemctl poweroff --no-block", timeout: 10)
            let deadline = TimeLimit(seconds: 30)
            while nspawn.isRunning, deadline.remains { usleep(50_000) }
            if nspawn.isRunning {
                kill(nspawn.processIdentifier, SIGKILL)
                nspawn.waitUntilExit()
            }
        }
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: consoleLog)
    }

    deinit { shutdown() }

    /// The pid of the child of `parent` whose command name is `name`.
    public static func child(of parent: Int32, named name: String) -> Int32? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task") else {
            return nil
        }
        for task in tasks {
            let children = (try? String(contentsOfFile: "/proc/\(parent)/task/\(task)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ Int32($0) }) {
                let comm = (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                if comm == name { return child }
            }
        }
        return nil
    }
}
