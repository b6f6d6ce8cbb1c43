public import Logging
import PizzaCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writes log lines to stderr: under systemd (`JOURNAL_STREAM` set) each line starts with its syslog priority
/// (`<3>` error … `<7>` debug) and carries no timestamp, since the journal adds one; on a terminal, plain
/// readable text with a local timestamp.
public struct DaemonLogHandler: LogHandler {
    /// Whether to write for the journal.
    public let journal: Bool
    public var metadata: Logger.Metadata = [:]
    /// The level is shared by every logger (``sharedLevel``), so `SIGHUP` can change it for all at once.
    public var logLevel: Logger.Level {
        get { Self.sharedLevel }
        set { Self.sharedLevel = newValue }
    }
    private let label: String
    /// Where the lines go instead of stderr (a daemon in a test's process keeps its own).
    private let sink: (@Sendable (String) -> Void)?

    /// The level of every logger writing through this handler: set at start and on `SIGHUP`.
    public static var sharedLevel: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }
    private static let level = Locked<Logger.Level>(.info)
    private static let output = Locked<Void>(())

    /// A handler for `label`; `journal`: under systemd (priority prefixes, no timestamps).
    public init(label: String, journal: Bool) {
        self.label = label
        self.journal = journal
        sink = nil
    }

    /// A handler for `label` writing each line, as on a terminal, to `sink`.
    init(label: String, sink: @escaping @Sendable (String) -> Void) {
        self.label = label
        journal = false
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The syslog priority of a level (sd-daemon(3)).
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let details =
            merged.isEmpty
            ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let message = "\(event.message)\(details)".replacingNewlines()
        let line: String
        if journal {
            line = "<\(Self.priority(of: event.level))>\(message)\n"
        } else {
            line = "\(Self.localTime()) \(event.level.rawValue.uppercased()) \(message)\n"
        }
        if let sink { return sink(line) }
        Self.output.withLock { _ in
            _ = line.utf8CString.withUnsafeBufferPointer { buffer in
                write(STDERR_FILENO, buffer.baseAddress, buffer.count - 1)
            }
        }
    }

    static func localTime() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(now.tv_nsec / 1_000_000)
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)"
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        contains("\n") ? split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ⏎ ") : self
    }
}
