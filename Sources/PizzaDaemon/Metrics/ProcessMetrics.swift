#if canImport(Glibc)
    import Glibc
#endif

/// The standard process metrics every Prometheus client exports (`process_cpu_seconds_total`,
/// `process_resident_memory_bytes`, …), read from `/proc/self` at each scrape. Only `/proc/self` is read, which
/// `ProcSubset=pid` in the unit allows. See proc_pid_stat(5).
enum ProcessMetrics {
    /// The exposition text of the process metrics, or "" where `/proc/self/stat` cannot be read.
    static func render() -> String {
        guard let fields = statFields(), fields.count > 21 else { return "" }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        let cpu = ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
        let startedAfterBoot = (Double(fields[19]) ?? 0) / ticks
        var text = ""
        func metric(_ name: String, _ type: String, _ help: String, _ value: Double) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(format(value))\n"
        }
        metric("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", cpu)
        metric(
            "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
            (Double(fields[21]) ?? 0) * pageSize)
        metric("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", Double(fields[20]) ?? 0)
        if let open = openDescriptors() {
            metric("process_open_fds", "gauge", "Number of open file descriptors.", Double(open))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            metric("process_max_fds", "gauge", "Maximum number of open file descriptors.", Double(limit.rlim_cur))
        }
        var boot = timespec()
        var now = timespec()
        if clock_gettime(CLOCK_BOOTTIME, &boot) == 0, clock_gettime(CLOCK_REALTIME, &now) == 0 {
            let sinceBoot = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9
            let wall = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            metric(
                "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
                (wall - sinceBoot + startedAfterBoot).rounded(.down))
        }
        return text
    }

    /// The fields of `/proc/self/stat` after the command name (index 0 is the state, field 3 of proc_pid_stat(5)).
    static func statFields() -> [Substring]? {
        guard let text = readFile("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// How many descriptors are open: the entries of `/proc/self/fd` (less the one reading it).
    static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { count += 1 }
        }
        return count - 1
    }

    private static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : nil
    }

    /// A whole number without a fraction, else the shortest exact form.
    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
