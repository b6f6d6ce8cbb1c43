import Foundation
import PizzaCore
import PizzaTesting
import Synchronization

/// A real `pizzad` in its own temporary folder, with its socket and database there.
final class DaemonProcess: Sendable {
    let directory: String
    let socket: String
    let database: String
    let process: Process
    /// Whether the folder was made for this daemon (and goes with it); a folder passed in is the caller's.
    private let ownsDirectory: Bool
    private let log = Locked(Data())
    /// Set when the output pipe reached its end: everything pizzad wrote is in `log`.
    private let logEnded = Locked(false)

    /// Starts pizzad with `config` (YAML text, written to the folder) and `extraArguments`, and waits until
    /// its socket accepts connections.
    init(
        config: String? = nil, arguments extraArguments: [String] = [], environment: [String: String] = [:],
        directory: String? = nil, wait: Bool = true
    ) throws {
        ownsDirectory = directory == nil
        let directory = directory ?? (NSTemporaryDirectory() + "pizzad-it-" + UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Others (the nobody user in access tests) must be able to reach the socket inside.
        chmod(directory, 0o755)
        self.directory = directory
        socket = directory + "/pizzad.sock"
        database = directory + "/pizzad.sqlite"
        var arguments = ["--socket", socket, "--database", database]
        if let config {
            let path = directory + "/pizzad.yaml"
            try Data(config.utf8).write(to: URL(fileURLWithPath: path))
            arguments += ["--config", path]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.pizzad)
        process.arguments = arguments + extraArguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = PizzadEnvironment.scrubbed(overriding: environment)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [log, logEnded] handle in
            let data = handle.availableData
            log.withLock { $0.append(data) }
            // End of file: the daemon is gone; drop the handler so the pipe and its source are released.
            if data.isEmpty {
                handle.readabilityHandler = nil
                logEnded.withLock { $0 = true }
            }
        }
        self.process = process
        try process.run()
        if wait { try waitUntilServing() }
    }

    /// What pizzad logged so far.
    var output: String { log.withLock { String(decoding: $0, as: UTF8.self) } }

    var pid: Int32 { process.processIdentifier }

    func waitUntilServing(timeout: Double = 20) throws {
        let deadline = TimeLimit(seconds: timeout)
        while deadline.remains {
            if !process.isRunning {
                throw HarnessError("pizzad exited with \(process.terminationStatus) before serving:\n\(output)")
            }
            if output.contains("ready"), (try? RawConnection(path: socket)) != nil { return }
            usleep(20_000)
        }
        throw HarnessError("pizzad did not serve within \(timeout)s:\n\(output)")
    }

    /// Waits for the process to exit on its own; returns its status.
    func waitForExit(timeout: Double = 20) throws -> Int32 {
        let deadline = TimeLimit(seconds: timeout)
        while process.isRunning, deadline.remains { usleep(10_000) }
        guard !process.isRunning else { throw HarnessError("pizzad still runs after \(timeout)s:\n\(output)") }
        waitForOutputEnd()
        return process.terminationStatus
    }

    /// Runs pizzactl against this daemon, as a user would type it.
    @discardableResult
    func pizzactl(_ arguments: [String], as user: String? = nil, group: String? = nil) throws -> CommandResult {
        // Sanitizer builds of pizzad share two cores with other suites' loads: give answers more than the usual 10 s.
        let common = ["--socket", socket] + (sanitizerIsActive ? ["--timeout", "120"] : [])
        if let user {
            var setpriv = ["--reuid=\(user)", "--regid=\(group ?? user)", "--clear-groups", Binaries.pizzactl] + common
            setpriv += arguments
            return try run("setpriv", setpriv)
        }
        return try run(Binaries.pizzactl, common + arguments)
    }

    /// Sends `signal` and waits for the exit; returns the exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, timeout: Double? = nil) throws -> Int32 {
        let timeout = timeout ?? (sanitizerIsActive ? 180 : 30)
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = TimeLimit(seconds: timeout)
        while process.isRunning, deadline.remains { usleep(10_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            throw HarnessError("pizzad did not exit within \(timeout)s after signal \(signal):\n\(output)")
        }
        waitForOutputEnd()
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    /// After the exit, the pipe's last bytes may still be on their way to `log`: wait for its end (briefly, as a
    /// child that inherited the pipe could hold it open).
    private func waitForOutputEnd() {
        let deadline = TimeLimit(seconds: 5)
        while !logEnded.withLock({ $0 }), deadline.remains { usleep(5_000) }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
