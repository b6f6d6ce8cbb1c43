import Foundation
import PizzaTesting
import Synchronization

/// The outcome of running a program.
struct CommandResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

/// Runs a program to completion, feeding `input`, capturing both outputs; kills it after `timeout`.
///
/// Through ``ChildProcess`` (posix_spawn and waitpid), not Foundation's `Process`: this runs thousands of times a
/// test run (every `pizzactl` and `sqlite3`), and each `Process` whose exit was polled kept its output pipe open,
/// until a run held 1,500 descriptors and `Process.run()`'s over-read of `/proc/self/fd` crashed it.
@discardableResult
func run(
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
func waitForExit(_ process: Process) -> Int32 {
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
func sqlite3(_ path: String, _ sql: String) throws -> String {
    try run("sqlite3", [path, sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}
