/// The settings every pizzad connection runs with, each read back after it is set.
///
/// SQLite silently ignores some pragmas (an unknown name, WAL on a file system without shared memory), so a
/// setting that does not read back as asked fails loudly instead. See <https://www.sqlite.org/pragma.html>.
public struct ConnectionSettings: Sendable {
    /// `PRAGMA synchronous` levels.
    public enum Synchronous: String, Sendable, CaseIterable {
        case off = "OFF"
        case normal = "NORMAL"
        case full = "FULL"
        case extra = "EXTRA"

        /// The number SQLite reports back for the level.
        public var level: Int64 {
            switch self {
            case .off: 0
            case .normal: 1
            case .full: 2
            case .extra: 3
            }
        }
    }

    /// `synchronous`; `FULL` keeps every acknowledged commit through power loss.
    public var synchronous: Synchronous = .full
    /// How long a connection waits for a lock before `SQLITE_BUSY`, in milliseconds.
    public var busyTimeoutMilliseconds: Int = 5_000
    /// Whether the connection may only read (`PRAGMA query_only`).
    public var queryOnly: Bool = false
    /// Page cache size in KiB (`PRAGMA cache_size = -N`).
    public var cacheKiB: Int = 4_096
    /// Whether the file itself cannot be written (opened with `mode=ro` or `immutable=1`): the journal mode is
    /// then neither set nor checked, since SQLite reports what it can use, not what the header says.
    public var fileIsReadOnly: Bool = false

    public init(synchronous: Synchronous = .full, busyTimeoutMilliseconds: Int = 5_000, queryOnly: Bool = false) {
        self.synchronous = synchronous
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.queryOnly = queryOnly
    }
}

extension Database {
    /// Applies `settings` (WAL, synchronous, foreign keys, busy timeout, cache) and reads each one back.
    public func configure(_ settings: ConnectionSettings) throws {
        try execute("PRAGMA busy_timeout = \(settings.busyTimeoutMilliseconds)")
        try expect("busy_timeout", .integer(Int64(settings.busyTimeoutMilliseconds)))
        if !settings.queryOnly {
            let mode = try scalar("PRAGMA journal_mode = WAL")
            guard mode == .text("wal") else {
                throw SettingNotApplied(pragma: "journal_mode", expected: "wal", actual: Self.describe(mode))
            }
        } else if !settings.fileIsReadOnly {
            try expect("journal_mode", .text("wal"))
        }
        try execute("PRAGMA synchronous = \(settings.synchronous.rawValue)")
        try expect("synchronous", .integer(settings.synchronous.level))
        try execute("PRAGMA foreign_keys = ON")
        try expect("foreign_keys", .integer(1))
        try execute("PRAGMA cache_size = -\(settings.cacheKiB)")
        try execute("PRAGMA query_only = \(settings.queryOnly ? 1 : 0)")
        try expect("query_only", .integer(settings.queryOnly ? 1 : 0))
    }

    private func expect(_ pragma: String, _ expected: SQLValue) throws {
        let actual = try scalar("PRAGMA \(pragma)")
        guard actual == expected else {
            throw SettingNotApplied(pragma: pragma, expected: Self.describe(expected), actual: Self.describe(actual))
        }
    }

    static func describe(_ value: SQLValue?) -> String {
        switch value {
        case .none, .null?: "nothing"
        case .integer(let int)?: String(int)
        case .real(let double)?: String(double)
        case .text(let text)?: text
        case .blob(let bytes)?: "\(bytes.count) bytes"
        }
    }
}
