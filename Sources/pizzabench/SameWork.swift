import Foundation

/// The ceiling: `../shared/bench/samework.c`, the same rows as `order.create` (two pizzas, placed, with the audit
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
        try Bench.run(
            "/usr/bin/env",
            ["gcc", "-O2", "-Wno-deprecated-declarations", "-o", binary, source, "-lsqlite3", "-lcrypto"])
    }

    /// `batch` orders per transaction (the batch a group commit makes from that many clients), for `seconds`.
    func run(batch: Int, seconds: Double) throws -> Result {
        let output = try Bench.run(
            binary, [directory + "/samework.db", migrations, String(batch), Bench.format(seconds, 1)])
        let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard fields.count == 2 else { throw BenchError("cannot read samework's output: \(output)") }
        return Result(perSecond: fields[0], cpuMicrosPerOrder: fields[1])
    }
}
