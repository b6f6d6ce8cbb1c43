import CSystemShims
import Foundation

/// Who has a database open, found from the record locks SQLite's connections hold for as long as they are open.
public enum DatabaseHolder {
    /// The process (pid and program name) that has the database at `path` open, or nil when none has.
    ///
    /// In WAL mode every connection holds a shared lock on the `-shm` file's bytes 120…128 (the DMS byte and the
    /// read marks; see SQLite's `os_unix.c`, `UNIX_SHM_BASE`), and one in rollback mode holds a shared lock on the
    /// database file's lock range at 1 GiB. F_GETLK reports the holder without taking anything.
    public static func holder(of path: String) -> (pid: Int32, program: String)? {
        let probes: [(file: String, start: Int, length: Int)] = [
            (path + "-shm", 120, 9), (path, 0x4000_0000, 512),
        ]
        for probe in probes where FileManager.default.fileExists(atPath: probe.file) {
            let pid = pizzad_lock_holder(probe.file, off_t(probe.start), off_t(probe.length))
            if pid > 0 { return (pid, program(pid)) }
        }
        return nil
    }

    /// The program name of `pid` (`/proc/PID/comm`), or "a process" when it cannot be read.
    static func program(_ pid: Int32) -> String {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return "a process" }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
