import Foundation
import PizzaTesting

/// Small helpers the benchmark sections share: timing, processes, /proc readings.
enum Bench {
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Builds a C benchmark program (`Baselines/samework.c`, `SocketWork/socketwork.c`) with gcc against
    /// libsqlite3 and libcrypto (`.ci/run` installs gcc, libsqlite3-dev and libssl-dev).
    static func buildC(_ source: String, into binary: String, flags: [String] = []) throws {
        try run(
            "/usr/bin/env",
            ["gcc", "-O2", "-Wno-deprecated-declarations"] + flags + ["-o", binary, source, "-lsqlite3", "-lcrypto"])
    }

    /// Runs a C benchmark program and reads the first `count` numbers it prints.
    static func numbers(_ binary: String, _ arguments: [String], count: Int) throws -> [Double] {
        let output = try run(binary, arguments)
        let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard fields.count >= count else {
            throw BenchError("cannot read \((binary as NSString).lastPathComponent)'s output: \(output)")
        }
        return Array(fields.prefix(count))
    }

    /// Runs a program and returns its standard output (fails loudly on a non-zero exit).
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.runWithCleanSignals()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("\(program) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs a program and returns its exit status with its output and error output together.
    static func runStatus(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.runWithCleanSignals()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// User plus system CPU seconds of `pid` so far.
    static func cpuSeconds(of pid: Int32) -> Double { ProcessCPU.seconds(pid) }

    /// User plus system CPU seconds of this process (every thread) so far.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Peak resident memory of `pid` (VmHWM), in MiB.
    static func peakRSS(of pid: Int32) -> Double { ProcessMemory.peakMiB(of: pid) }

    /// A memory figure of `/proc/PID/status` (`VmHWM` the peak, `VmRSS` now), in MiB.
    static func statusMiB(of pid: Int32, _ field: String) -> Double { ProcessMemory.statusMiB(of: pid, field) }

    /// Writes back what the steps before left dirty in the page cache (`sync`), so that the kernel's writeback of
    /// their files does not land in the next step's time and CPU.
    static func settleDisk() { sync() }

    /// The median of `values` (the mean of the middle two when there is an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

    /// A duration in nanoseconds as µs or ms, for tables.
    static func latency(_ nanoseconds: UInt64) -> String {
        nanoseconds >= 1_000_000
            ? format(Double(nanoseconds) / 1e6, 2) + " ms" : format(Double(nanoseconds) / 1e3, 0) + " µs"
    }

    /// Prints rows under headers in aligned columns.
    /// Prints `rows` in columns under `headers` (left out with `header: false`, for a table printed a row at a time).
    static func table(_ headers: [String], _ rows: [[String]], header: Bool = true) {
        var widths = headers.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == 0
                    ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ")
        }
        if header { print(line(headers)) }
        for row in rows { print(line(row)) }
        fflush(nil)
    }
}
