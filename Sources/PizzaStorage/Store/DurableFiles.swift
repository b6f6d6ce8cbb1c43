import CSystemShims
import Foundation

/// File-system steps that survive a power cut, not only a crash: a new name is durable only once its folder is
/// fsynced, and a file's data only once the file is (see docs/TESTING.md, "Power loss").
public enum DurableFiles {
    /// Makes `path` and any missing parents with `permissions`, fsyncing the folder each new one was made in, so
    /// the folders (and what is later made durable in them) are still there after a power cut.
    public static func createDirectories(_ path: String, permissions: Int16 = 0o750) throws {
        var missing: [String] = []
        var current = path.isEmpty ? "." : path
        while !FileManager.default.fileExists(atPath: current) {
            missing.append(current)
            let parent = (current as NSString).deletingLastPathComponent
            if parent.isEmpty || parent == current { break }
            current = parent
        }
        for folder in missing.reversed() {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: permissions])
            try syncDirectory(parent(of: folder))
        }
    }

    /// The folder `path` is in ("." for a bare name).
    public static func parent(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// fsyncs the folder at `path`: the names made, renamed or removed in it become durable.
    public static func syncDirectory(_ path: String) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open the folder", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync the folder", path) }
    }

    /// fsyncs the file at `path`: its data becomes durable (its name needs ``syncDirectory(_:)`` of its folder).
    public static func syncFile(_ path: String) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync", path) }
    }

    /// Renames `source` to `target` unless `target` exists (atomically: `renameat2` with `RENAME_NOREPLACE`),
    /// then fsyncs the folder so the new name is durable. Both must be in the same folder.
    public static func publish(_ source: String, as target: String) throws(StorageError) {
        guard pizzad_rename_noreplace(source, target) == 0 else {
            if errno == EEXIST { throw StorageError.backupTargetExists(path: target) }
            throw failure("rename \(source) to", target)
        }
        try syncDirectory(parent(of: target))
    }

    private static func failure(_ what: String, _ path: String) -> StorageError {
        .fileSystem(operation: what, path: path, reason: String(cString: strerror(errno)))
    }
}
