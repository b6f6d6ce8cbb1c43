import Foundation

/// Where programs are found as a shell finds them: the tests, the power-cut rounds and pizzabench ask it whether a
/// tool they need is installed before they start it.
public enum ProgramPath {
    /// The first executable named `program` in a folder of `PATH` (`/usr/bin:/bin` when it is not set), or nil.
    public static func find(_ program: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
