import CoreMetrics
import PizzaCore
import PizzaMetrics

#if canImport(Glibc)
    import Glibc
#endif

/// The standard process metrics every Prometheus client exports (`process_cpu_seconds_total`,
/// `process_resident_memory_bytes`, …), read from `/proc/self` at each scrape and recorded through swift-metrics on
/// the daemon's one Prometheus backend. Only `/proc/self` is read, which `ProcSubset=pid` in the unit allows. See
/// proc_pid_stat(5).
final class ProcessMetrics: Sendable {
    /// What each means, for the `# HELP` lines (the texts the Prometheus clients use).
    static let help: [String: String] = [
        "process_cpu_seconds_total": "Total user and system CPU time spent in seconds.",
        "process_resident_memory_bytes": "Resident memory size in bytes.",
        "process_virtual_memory_bytes": "Virtual memory size in bytes.",
        "process_open_fds": "Number of open file descriptors.",
        "process_max_fds": "Maximum number of open file descriptors.",
        "process_start_time_seconds": "Start time of the process since unix epoch in seconds.",
    ]

    private let cpu: FloatingPointCounter
    /// The CPU seconds the counter holds: each scrape adds what was spent since.
    private let counted = Locked(0.0)
    private let resident: Gauge
    private let virtual: Gauge
    private let openDescriptors: Gauge
    private let maximumDescriptors: Gauge
    private let started: Gauge

    init(backend: PrometheusBackend) {
        backend.describe(Self.help)
        let factory = backend.factory
        cpu = FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory)
        resident = Gauge(label: "process_resident_memory_bytes", factory: factory)
        virtual = Gauge(label: "process_virtual_memory_bytes", factory: factory)
        openDescriptors = Gauge(label: "process_open_fds", factory: factory)
        maximumDescriptors = Gauge(label: "process_max_fds", factory: factory)
        started = Gauge(label: "process_start_time_seconds", factory: factory)
        update()
    }

    /// Reads `/proc/self` and records it: before each render. Where it cannot be read the values stay as they were.
    func update() {
        guard let fields = Self.statFields(), fields.count > 21 else { return }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        let seconds = ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
        let spent = counted.withLock { counted -> Double in
            let spent = max(0, seconds - counted)
            counted += spent
            return spent
        }
        if spent > 0 { cpu.increment(by: spent) }
        resident.record((Double(fields[21]) ?? 0) * pageSize)
        virtual.record(Double(fields[20]) ?? 0)
        if let open = Self.openDescriptors() { openDescriptors.record(open) }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { maximumDescriptors.record(Double(limit.rlim_cur)) }
        var boot = timespec()
        var now = timespec()
        if clock_gettime(CLOCK_BOOTTIME, &boot) == 0, clock_gettime(CLOCK_REALTIME, &now) == 0 {
            let sinceBoot = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9
            let wall = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            started.record((wall - sinceBoot + (Double(fields[19]) ?? 0) / ticks).rounded(.down))
        }
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
}
