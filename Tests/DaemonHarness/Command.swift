public import Foundation
import PizzaTesting
import Synchronization

/// The outcome of running a program.
public struct CommandResult: CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

/// Runs a program to completion, feeding `input`, capturing both outputs; kills it after `timeout`.
///
/// Through ``ChildProcess`` (posix_spawn and waitpid), not Foundation's `Process`: this runs thousands of times a
/// test run (every `pizzactl` and `sqlite3`), and each `Process` whose exit was polled kept its output pipe open,
/// until a run held 1,500 descriptors and `Process.run()`'s over-read of `/proc/self/fd` crashed it.
@discardableResult
public func run(
    _ program: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
    directory: String? = nil, timeout: Double = 60
) throws -> CommandResult {
    let result = try ChildProcess.capture(
        program, arguments, environment: environment, input: input, directory: directory, timeout: timeout)
    return CommandResult(status: result.status, stdout: result.output, stderr: result.errors)
}

/// Waits for `process` to exit and returns its exit status (128 + signal when killed).
///
/// Reaps the child itself with `waitpid` when Foundation's own reaper has not noticed the exit (seen when another
/// child of the test was started through systemd-socket-activate), instead of waiting forever.
public func waitForExit(_ process: Process) -> Int32 {
    let pid = process.processIdentifier
    while process.isRunning {
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid {
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }
        usleep(2_000)
    }
    return process.terminationStatus
}

/// Runs `sqlite3 path sql` and returns its trimmed output.
public func sqlite3(_ path: String, _ sql: String) throws -> String {
    try run("sqlite3", [path, sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Parses pizzactl's `--json` output.
public func json(_ result: CommandResult) throws -> [String: Any] {
    guard result.status == 0 else { throw HarnessError("pizzactl failed: \(result)") }
    guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
        throw HarnessError("not a JSON object: \(result.stdout)")
    }
    return object
}

/// Whether this process may mount a tmpfs (root, as on the build machines and CI).
public let canMount: Bool = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount")
