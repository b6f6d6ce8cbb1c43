import Foundation
import Synchronization

/// `powercutfs` (Tests/PowerCut/powercutfs.c), mounted over a backing folder: a file system that keeps every
/// change in memory until it is fsynced and forgets the rest at a simulated power cut.
///
/// Writing to the control file `/.powercut` inside the mount drives it (see the C file's header); this class wraps
/// those commands, the build, the mount and the unmount.
public final class PowerCutFileSystem: Sendable {
    /// "The disk": what survived the last cut or unmount.
    public let backing: String
    public let mountPoint: String
    private let process: Process
    private let logPath: String

    /// The counters the file system keeps since it was mounted.
    public struct Counters: Sendable, CustomStringConvertible {
        public var cut = false
        public var syncs = 0
        public var droppedBytes = 0
        public var tornWrites = 0
        public var lostEntries = 0
        public var keptWrites = 0
        public var seed = ""
        public var description: String {
            "cut=\(cut) syncs=\(syncs) dropped_bytes=\(droppedBytes) torn_writes=\(tornWrites) lost_entries=\(lostEntries) kept_writes=\(keptWrites) seed=\(seed)"
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Why power-cut tests cannot run here, or nil when they can: FUSE needs `/dev/fuse`, the build needs a C
    /// compiler and libfuse3's headers (Debian: fuse3, libfuse3-dev).
    public static var unavailableReason: String? {
        guard FileManager.default.fileExists(atPath: "/dev/fuse") else {
            return "/dev/fuse is missing (no FUSE in this kernel or container)"
        }
        let fd = open("/dev/fuse", O_RDWR)
        guard fd >= 0 else { return "/dev/fuse cannot be opened: \(String(cString: strerror(errno)))" }
        close(fd)
        for program in ["cc", "pkg-config", "fusermount3"] where ProgramPath.find(program) == nil {
            return "\(program) is missing (Debian: gcc, pkg-config, fuse3)"
        }
        return nil
    }

    /// Builds `powercutfs` from `source` into `directory` unless a build newer than the source is there; returns its path.
    public static func build(source: String, into directory: String) throws -> String {
        let binary = directory + "/powercutfs"
        let sourceDate =
            try FileManager.default.attributesOfItem(atPath: source)[.modificationDate] as? Date ?? .distantFuture
        if let built = (try? FileManager.default.attributesOfItem(atPath: binary))?[.modificationDate] as? Date,
            built > sourceDate
        {
            return binary
        }
        let flags = try command("pkg-config", ["--cflags", "--libs", "fuse3"])
        guard flags.status == 0 else { throw Failure("pkg-config fuse3: \(flags.output) (Debian: libfuse3-dev)") }
        let partial = binary + ".\(getpid()).partial"
        let arguments =
            ["-O2", "-Wall", "-Wextra", "-Werror", "-o", partial, source]
            + flags.output.split(whereSeparator: \.isWhitespace).map(String.init)
        let compiled = try command("cc", arguments)
        guard compiled.status == 0 else { throw Failure("cc \(source) failed:\n\(compiled.output)") }
        guard rename(partial, binary) == 0 else {
            throw Failure("rename \(partial): \(String(cString: strerror(errno)))")
        }
        return binary
    }

    /// Mounts `binary` over `backing` at `mountPoint` (both made if missing) and waits until the mount serves.
    /// `seed` makes a cut's choices repeatable; `torn` lets a cut tear one unsynced write per file at a sector;
    /// `prefix` lets a cut keep a random prefix of each file's unsynced writes (off: every one is dropped).
    public init(
        binary: String, backing: String, mountPoint: String, seed: UInt32? = nil, torn: Bool = true, prefix: Bool = true
    ) throws {
        self.backing = backing
        self.mountPoint = mountPoint
        for folder in [backing, mountPoint] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        logPath = mountPoint + ".log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        log.seekToEndOfFile()
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [backing, mountPoint, "-f"]
        var environment = ProcessInfo.processInfo.environment
        environment["POWERCUTFS_SEED"] = seed.map { "\($0)" } ?? "\(UInt32.random(in: 0...UInt32.max))"
        environment["POWERCUTFS_TORN"] = torn ? "1" : "0"
        environment["POWERCUTFS_PREFIX"] = prefix ? "1" : "0"
        process.environment = environment
        process.standardOutput = log
        process.standardError = log
        try process.runWithCleanSignals()
        let deadline = TimeLimit(seconds: 10)
        while !Self.isMounted(mountPoint) {
            guard process.isRunning else {
                throw Failure("powercutfs exited with \(process.terminationStatus) before mounting:\n\(self.log)")
            }
            guard deadline.remains else {
                kill(process.processIdentifier, SIGKILL)
                throw Failure("powercutfs did not mount \(mountPoint) within 10 s:\n\(self.log)")
            }
            usleep(5_000)
        }
    }

    /// What powercutfs printed (each cut prints its counters).
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends a control command ("cut", "arm-syncs N", "arm-ms N", "seed N", "torn 0|1", "prefix 0|1").
    public func control(_ command: String) throws {
        let path = mountPoint + "/.powercut"
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw Failure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(command.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            throw Failure("powercutfs refused \"\(command)\": \(String(cString: strerror(errno)))")
        }
    }

    /// The power cut: everything not durable is dropped, and the disk answers EIO until it is remounted.
    public func cut() throws { try control("cut") }

    public var counters: Counters {
        get throws {
            let text = try String(contentsOfFile: mountPoint + "/.powercut", encoding: .utf8)
            var counters = Counters()
            for pair in text.split(whereSeparator: \.isWhitespace) {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                let number = Int(parts[1]) ?? 0
                switch parts[0] {
                case "state": counters.cut = parts[1] == "cut"
                case "syncs": counters.syncs = number
                case "dropped_bytes": counters.droppedBytes = number
                case "torn_writes": counters.tornWrites = number
                case "lost_entries": counters.lostEntries = number
                case "kept_writes": counters.keptWrites = number
                case "seed": counters.seed = parts[1]
                default: break
                }
            }
            return counters
        }
    }

    /// Unmounts (after a cut the backing folder holds what survived; otherwise unmounting is a sync) and waits
    /// for powercutfs to exit.
    public func unmount() throws {
        var last = ""
        for _ in 0..<100 where Self.isMounted(mountPoint) {
            let result = try Self.command("fusermount3", ["-u", mountPoint])
            if result.status == 0 { break }
            last = result.output
            usleep(50_000)
        }
        if Self.isMounted(mountPoint) { throw Failure("cannot unmount \(mountPoint): \(last)") }
        // A mount namespace made while this was mounted (systemd-nspawn in the booted-systemd test, any
        // `unshare -m`) keeps a copy of the mount, and this machine's root mount is private, so the unmount here
        // does not reach that copy: powercutfs would go on serving it until the namespace ends (CI saw it wait
        // out 120 s beside the booted-systemd test). After a grace it is told to stop: on SIGTERM libfuse leaves
        // its loop and powercutfs writes the backing folder as for an unmount (`pc_destroy`, which then ignores
        // another SIGTERM).
        let grace = TimeLimit(seconds: 10)
        while process.isRunning, grace.remains { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        // A clean unmount writes the whole tree to the backing folder: give a loaded machine time.
        let deadline = TimeLimit(seconds: 120)
        while process.isRunning, deadline.remains { usleep(5_000) }
        if process.isRunning { throw Failure("powercutfs still runs 120 s after unmounting \(mountPoint):\n\(log)") }
    }

    deinit {
        // Only while this one runs is the mount at mountPoint its own (a later mount may serve the same folder).
        if process.isRunning, Self.isMounted(mountPoint) {
            _ = try? Self.command("fusermount3", ["-u", "-z", mountPoint])
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Whether a FUSE file system is mounted at `path` (its statfs type is FUSE's magic number).
    public static func isMounted(_ path: String) -> Bool {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
        return mounts.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 2 && fields[1] == path && fields[2].hasPrefix("fuse")
        }
    }

    /// Fsyncs a folder, as a careful program does after creating or renaming in it.
    public static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw Failure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure("fsync \(path): \(String(cString: strerror(errno)))") }
    }

    /// Runs a short program and returns its exit status and its output (both streams).
    static func command(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.runWithCleanSignals()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }
}
