import Foundation

/// The ceiling: `Baselines/samework.c`, the same rows as `order.create` (two pizzas, placed, with the audit
/// entry and its SHA-256 hash) written by plain C on the project's own migrations with group commit, built and
/// run in the same run as pizzad.
struct SameWork {
    struct Result {
        let perSecond: Double
        /// CPU microseconds per order (the whole process: it has one thread).
        let cpuMicrosPerOrder: Double
    }

    let binary: String
    let migrations: String
    let directory: String

    /// Builds `source` into `directory`; needs gcc, libsqlite3-dev and libssl-dev (`.ci/run` installs them).
    init(source: String, migrations: String, directory: String) throws {
        binary = directory + "/samework"
        self.migrations = migrations
        self.directory = directory
        try Bench.buildC(source, into: binary)
    }

    /// `batch` orders per transaction (the batch a group commit makes from that many clients), for `seconds`; each
    /// with a ref as the clients number them, or with none (`refs: false`).
    func run(batch: Int, seconds: Double, refs: Bool = true) throws -> Result {
        let fields = try Bench.numbers(
            binary,
            [directory + "/samework.db", migrations, String(batch), Bench.format(seconds, 1)] + (refs ? [] : ["noref"]),
            count: 2)
        return Result(perSecond: fields[0], cpuMicrosPerOrder: fields[1])
    }
}
