import Foundation

/// A folder of the test's own under `MemoryFolder.temporary` (in memory when there is room) or `parent`, removed with
/// everything in it when the value goes. Readable by others (`0755`): tests run pizzactl as other users against a
/// socket inside.
public final class TemporaryFolder: Sendable {
    public let path: String

    /// A new folder named `prefix` and a random part (`/dev/shm/pizzad-restore-1a2b3c4d`) in `parent` (ending in `/`).
    public init(_ prefix: String = "pizzad-test", in parent: String = MemoryFolder.temporary) throws {
        path = parent + prefix + "-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
    }

    /// A path inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the folder now (`defer { folder.remove() }` also keeps it until the end of the scope).
    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}

/// `/dev/shm`, for what a test writes and no crash of the machine needs to keep: on this kind of VM writing to the
/// disk costs CPU as well as time (the kernel's writeback: 15 ms of CPU a MB against 2.4 ms to tmpfs, copying a
/// PostgreSQL cluster), which a test run on two cores pays out of every other test's share.
public enum MemoryFolder {
    /// `/dev/shm` when it is a writable tmpfs with at least `free` bytes available, else nil.
    public static func path(free: UInt64) -> String? {
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        let tmpfs = mounts.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 2 && fields[1] == "/dev/shm" && fields[2] == "tmpfs"
        }
        var info = statvfs()
        guard tmpfs, access("/dev/shm", W_OK) == 0, statvfs("/dev/shm", &info) == 0,
            UInt64(info.f_bavail) * UInt64(info.f_frsize) >= free
        else { return nil }
        return "/dev/shm"
    }

    /// Where tests make their folders: `/dev/shm/` when it has 2 GiB free, else the system's temporary folder. A
    /// test's files are real files either way; what tmpfs lacks is only what a crash of the machine would keep,
    /// which the power-cut tests get from their own file system (`PowerCutFileSystem`). A warm `swift test` with
    /// its temporary folder there (TMPDIR=/dev/shm, 2026-12-07): 185 s against 201 s, 285 s of CPU against 293 s.
    public static let temporary: String = path(free: 2 << 30).map { $0 + "/" } ?? NSTemporaryDirectory()
}

/// Where the built programs are: beside the running one (the test bundle or pizzabench) in the build folder.
public enum BuiltPrograms {
    public static let directory: String = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On Linux the test runner is `<build>/pizzadPackageTests.xctest`; on other layouts walk up a little.
        for _ in 0..<3 where !FileManager.default.fileExists(atPath: url.appendingPathComponent("pizzad").path) {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    public static var pizzad: String { directory + "/pizzad" }
    public static var pizzactl: String { directory + "/pizzactl" }
}

/// Whether this process (and so the pizzad built with it) runs under AddressSanitizer or ThreadSanitizer, both
/// much slower: waits for pizzad are longer then.
public let sanitizerIsActive =
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
    || dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
