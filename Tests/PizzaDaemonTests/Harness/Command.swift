import Foundation

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
    let err = Pipe()
    let inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inPipe
    try process.run()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try? inPipe.fileHandleForWriting.close()
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    // Read both pipes concurrently so neither fills up.
    let errorData = Mutex(Data())
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        let data = err.fileHandleForReading.readDataToEndOfFile()
        errorData.withLock { $0 = data }
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    killer.cancel()
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
}

/// Runs `sqlite3 path sql` and returns its trimmed output.
func sqlite3(_ path: String, _ sql: String) throws -> String {
    try run("sqlite3", [path, sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

import Synchronization

/// A value shared between tasks and threads, behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
    var value: Value { mutex.withLock { $0 } }
}
