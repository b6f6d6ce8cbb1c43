import Foundation

/// CPU time of a process, or of one of its threads, from `/proc/<pid>/stat` (`/proc/<pid>/task/<tid>/stat`).
public enum ProcessCPU {
    /// The fields of `/proc/<pid>/stat` after the command's closing parenthesis (the state is the first); empty when
    /// the process is gone.
    static func fields(_ pid: pid_t) -> [Substring] { fields(ofStat: "/proc/\(pid)/stat") }

    /// The fields of a `stat` file after the command's closing parenthesis; empty when it cannot be read.
    static func fields(ofStat path: String) -> [Substring] {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return [] }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// User and system CPU seconds `pid` has used itself; 0 when it is gone.
    public static func seconds(_ pid: Int32) -> Double { seconds(ofStat: "/proc/\(pid)/stat") }

    /// User and system CPU seconds thread `thread` of `pid` has used; 0 when it is gone.
    public static func seconds(thread: Int, of pid: Int32) -> Double {
        seconds(ofStat: "/proc/\(pid)/task/\(thread)/stat")
    }

    /// How often thread `thread` of `pid` was preempted (`nonvoluntary_ctxt_switches`); 0 when it is gone.
    public static func preemptions(thread: Int, of pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("nonvoluntary_ctxt_switches:") })
        else { return 0 }
        return Int(line.dropFirst("nonvoluntary_ctxt_switches:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }

    /// User and system CPU seconds `pid` has used itself, apart (the system part is the kernel's on its behalf);
    /// 0 when it is gone.
    public static func split(_ pid: Int32) -> (user: Double, system: Double) { split(ofStat: "/proc/\(pid)/stat") }

    /// User and system CPU seconds of thread `thread` of `pid`, apart; 0 when it is gone.
    public static func split(thread: Int, of pid: Int32) -> (user: Double, system: Double) {
        split(ofStat: "/proc/\(pid)/task/\(thread)/stat")
    }

    private static func seconds(ofStat path: String) -> Double {
        let (user, system) = split(ofStat: path)
        return user + system
    }

    /// `utime` and `stime` of a `stat` file, in seconds.
    private static func split(ofStat path: String) -> (user: Double, system: Double) {
        let fields = fields(ofStat: path)
        guard fields.count > 12 else { return (0, 0) }
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (Double(Int(fields[11]) ?? 0) / tick, Double(Int(fields[12]) ?? 0) / tick)
    }
}

/// Memory of a process from `/proc/<pid>/status`.
public enum ProcessMemory {
    /// Peak resident memory of `pid` (`VmHWM`), in MiB; 0 when it is gone.
    public static func peakMiB(of pid: Int32) -> Double { statusMiB(of: pid, "VmHWM") }

    /// A memory figure of `/proc/PID/status` (`VmHWM` the peak, `VmRSS` now), in MiB.
    public static func statusMiB(of pid: Int32, _ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kib = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kib / 1024
    }
}
