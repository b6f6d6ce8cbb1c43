import CSystemShims
public import Foundation
import PizzaCore

/// A real `pizzad`, as the tests, the power-cut rounds and pizzabench start it: in a folder of its own (made for
/// it, and removed with it, unless one is given), with its socket and database there unless told otherwise, its
/// output kept in memory.
public final class PizzadProcess: Sendable {
    /// What to wait for after the start.
    public enum Readiness: Sendable {
        /// Nothing: the caller waits (``waitUntilServing(timeout:)``) or expects an exit.
        case none
        /// "ready" logged and the socket accepting connections.
        case serving
        /// `READY=1` on a notify socket of its own, as systemd would hear it (timed: ``readyAfter``).
        case notified
    }

    public let directory: String
    public let socket: String
    public let database: String
    public let process: Process
    /// Nanoseconds from the spawn to `READY=1`, when started with ``Readiness/notified``.
    public let readyAfter: UInt64?
    private let folder: TemporaryFolder?
    /// Whether pizzad logs its "ready" line (at `info` and below): then serving waits for it too.
    private let logsReady: Bool
    /// pizzad's standard output and error, read as they come.
    private let log: OutputPipe

    /// Starts `binary` with `config` (YAML text, written to the folder as `pizzad.yaml`) and `arguments`.
    public init(
        binary: String = BuiltPrograms.pizzad, config: String? = nil, arguments extraArguments: [String] = [],
        environment: [String: String] = [:], directory: String? = nil, database: String? = nil,
        socket: String? = nil, logLevel: String? = nil, wait readiness: Readiness = .serving
    ) throws {
        folder = directory == nil ? try TemporaryFolder("pizzad-it") : nil
        let directory = directory ?? folder!.path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.socket = socket ?? directory + "/pizzad.sock"
        self.database = database ?? directory + "/pizzad.sqlite"
        logsReady = [nil, "trace", "debug", "info"].contains(logLevel)
        var arguments = ["--socket", self.socket, "--database", self.database]
        if let logLevel { arguments += ["--log-level", logLevel] }
        if let config {
            let path = directory + "/pizzad.yaml"
            try Data(config.utf8).write(to: URL(fileURLWithPath: path))
            arguments += ["--config", path]
        }
        var environment = PizzadEnvironment.scrubbed(overriding: environment)
        let notify = readiness == .notified ? try NotifySocket(in: directory) : nil
        if let notify { environment["NOTIFY_SOCKET"] = notify.path }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + extraArguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment
        let log = try OutputPipe()
        self.log = log
        self.process = process
        let started = DispatchTime.now().uptimeNanoseconds
        try log.run(process, errors: true)
        if let notify {
            do {
                try notify.waitForReady(while: { process.isRunning })
            } catch {
                // What pizzad said before it went is the reason; say it with the error.
                usleep(100_000)
                let said = String(decoding: log.data, as: UTF8.self)
                throw HarnessError("\(error); pizzad said: \(said.suffix(2000))")
            }
            readyAfter = DispatchTime.now().uptimeNanoseconds - started
        } else {
            readyAfter = nil
        }
        if readiness == .serving { try waitUntilServing() }
    }

    /// What pizzad wrote so far.
    public var output: String { String(decoding: log.data, as: UTF8.self) }
    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    public func waitUntilServing(timeout: Double = sanitizerIsActive ? 120 : 60) throws {
        let deadline = TimeLimit(seconds: timeout)
        while deadline.remains {
            if !process.isRunning {
                throw HarnessError("pizzad exited with \(process.terminationStatus) before serving:\n\(output)")
            }
            if !logsReady || output.contains("ready"), (try? RawConnection(path: socket)) != nil { return }
            usleep(20_000)
        }
        throw HarnessError("pizzad did not serve within \(timeout)s:\n\(output)")
    }

    /// Waits for the process to exit on its own; returns its status.
    public func waitForExit(timeout: Double = 20) throws -> Int32 {
        let deadline = TimeLimit(seconds: timeout)
        while process.isRunning, deadline.remains { usleep(10_000) }
        guard !process.isRunning else { throw HarnessError("pizzad still runs after \(timeout)s:\n\(output)") }
        waitForOutputEnd()
        return process.terminationStatus
    }

    /// Sends `signal` and waits for the exit; returns the exit status (minus the signal's number when one ended it).
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, timeout: Double? = nil) throws -> Int32 {
        let timeout = timeout ?? (sanitizerIsActive ? 180 : 30)
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
        let deadline = TimeLimit(seconds: timeout)
        while process.isRunning, deadline.remains { usleep(10_000) }
        guard !process.isRunning else {
            Glibc.kill(process.processIdentifier, SIGKILL)
            throw HarnessError("pizzad did not exit within \(timeout)s after signal \(signal):\n\(output)")
        }
        waitForOutputEnd()
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    /// SIGKILL, and wait for it to be gone.
    public func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// After the exit, the pipe's last bytes may still be on their way to `log`: wait for its end (briefly, as a
    /// child that inherited the pipe could hold it open).
    private func waitForOutputEnd() {
        let deadline = TimeLimit(seconds: 5)
        while !log.ended, deadline.remains { usleep(5_000) }
    }

    deinit {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// A datagram socket to hear `READY=1` on, as systemd's notify socket.
private struct NotifySocket {
    let path: String
    let fd: Int32

    init(in directory: String) throws {
        path = directory + "/notify-\(UInt32.random(in: 0...UInt32.max)).sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0, pizzad_bind_unix(fd, path) == 0 else {
            throw HarnessError("cannot bind a notify socket at \(path): \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Waits for `READY=1` while `alive` holds (at most two minutes), then closes the socket.
    func waitForReady(while alive: () -> Bool) throws {
        defer {
            close(fd)
            unlink(path)
        }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let deadline = TimeLimit(seconds: 120)
        while deadline.remains {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0, String(decoding: buffer[..<count], as: UTF8.self).contains("READY=1") { return }
            guard alive() else { throw HarnessError("pizzad exited before READY=1") }
        }
        throw HarnessError("no READY=1 from pizzad within 120 s")
    }
}

/// Something a harness could not do, with what it saw.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension PizzadProcess {
    /// A pizzad as pizzabench and pizzatorture start it: the release build on `database` (default: in `directory`),
    /// with `config` (YAML text) and more `environment` variables if given, logging warnings only, timed from the
    /// spawn to READY=1.
    public static func bench(
        binary: String, directory: String, database: String? = nil, config: String? = nil,
        environment: [String: String] = [:]
    ) throws -> PizzadProcess {
        let daemon = try PizzadProcess(
            binary: binary, config: config, environment: environment, directory: directory, database: database,
            logLevel: "warning", wait: .notified)
        // A build whose tasks hop to a pool beside the event loops measures something nobody should run (405ee1d's
        // release build did so for a day unseen). The warning is logged just before READY=1; its line may come a
        // moment after.
        let deadline = TimeLimit(seconds: 0.3)
        while deadline.remains, !daemon.output.contains("Swift tasks run on a thread pool") { usleep(10_000) }
        if daemon.output.contains("Swift tasks run on a thread pool") {
            _ = try? daemon.stop()
            throw HarnessError("\(binary) runs its tasks beside its event loops, not on them:\n\(daemon.output)")
        }
        return daemon
    }
}
