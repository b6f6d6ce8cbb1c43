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
@discardableResult
func run(
    _ program: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
    directory: String? = nil, timeout: Double = 60
) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : "/usr/bin/env")
    process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { $1 }
    process.environment = env
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    // Standard error goes to a file, so one thread can drain standard output without any risk of a full pipe.
    let errorPath = NSTemporaryDirectory() + "pizzad-stderr-" + UUID().uuidString
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: errorPath) }
    let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    let inPipe = Pipe()
    process.standardOutput = out
    process.standardError = errorHandle
    process.standardInput = inPipe
    try process.runWithCleanSignals()
    try? errorHandle.close()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try? inPipe.fileHandleForWriting.close()
    let pid = process.processIdentifier
    let killer = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let status = waitForExit(process)
    killer.cancel()
    let errorData = FileManager.default.contents(atPath: errorPath) ?? Data()
    return CommandResult(
        status: status, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errorData, as: UTF8.self))
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
