import Foundation

/// A pizzad for the power-cut runs: its socket and log in `run` (off the cut file system), its database anywhere.
public final class PizzadProcess: Sendable {
    public let socket: String
    public let logPath: String
    private let process: Process

    /// Starts pizzad and waits until its socket answers; throws with its log if it exits first.
    public init(binary: String, database: String, run: String, environment: [String: String] = [:], wait: Bool = true)
        throws
    {
        socket = run + "/pizzad-\(UInt32.random(in: 0...UInt32.max)).sock"
        logPath = socket + ".log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--database", database, "--socket", socket, "--log-level", "notice"]
        process.currentDirectoryURL = URL(fileURLWithPath: run)
        process.environment = PizzadEnvironment.scrubbed(overriding: environment)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        if wait { try waitUntilServing() }
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    public var isRunning: Bool { process.isRunning }
    public var status: Int32 { process.terminationStatus }

    public func waitUntilServing(timeout: Double = 60) throws {
        let deadline = TimeLimit(seconds: timeout)
        while deadline.remains {
            guard process.isRunning else {
                throw PowerCutFileSystem.Failure(
                    "pizzad exited with \(process.terminationStatus) before serving:\n\(log)")
            }
            if (try? RawConnection(path: socket)) != nil { return }
            usleep(10_000)
        }
        throw PowerCutFileSystem.Failure("pizzad did not serve within \(timeout) s:\n\(log)")
    }

    /// Waits for pizzad to exit on its own (at most `timeout` seconds); returns whether it did.
    public func waitForExit(timeout: Double) -> Bool {
        let deadline = TimeLimit(seconds: timeout)
        while process.isRunning, deadline.remains { usleep(5_000) }
        return !process.isRunning
    }

    /// SIGKILL, and wait for it to be gone.
    public func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGTERM; returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: socket)
    }
}
