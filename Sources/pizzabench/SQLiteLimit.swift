import Foundation

/// The physical limit on this machine: `Baselines/sqlite-limit.c`, built and run in the same run.
struct SQLiteLimit {
    let modeA: Double
    let modeC: Double

    static func measure(source: String, directory: String) throws -> SQLiteLimit {
        let binary = directory + "/sqlite-limit"
        try Bench.run("/usr/bin/env", ["gcc", "-O2", "-Wall", "-o", binary, source, "-lsqlite3"])
        func rows(_ output: String) throws -> Double {
            guard let range = output.range(of: #"([0-9.]+) rows/s"#, options: .regularExpression),
                let value = Double(output[range].split(separator: " ")[0])
            else { throw BenchError("cannot read sqlite-limit output: \(output)") }
            return value
        }
        // Mode a: one row per transaction with synchronous=FULL, the durable floor pizzad is measured against.
        let a = try rows(Bench.run(binary, ["insert", directory + "/limit.db", "a", "3000", "int"]))
        let c = try rows(Bench.run(binary, ["insert", directory + "/limit.db", "c", "200000", "int"]))
        return SQLiteLimit(modeA: a, modeC: c)
    }
}
