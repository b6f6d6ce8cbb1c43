import DaemonHarness
import Foundation
import Logging
import NIOPosix
import PizzaCore
import PizzaReplication
import PizzaTesting

@testable import PizzaDaemon

/// pizzad in the test's own process, whole: the configuration loaded from its file and environment, the database
/// opened and migrated, every service the daemon runs (the control socket, the board, metrics, the order API,
/// shipping, the outbox) on real sockets, stopped gracefully as SIGTERM would; pizzactl reaches it as a user types
/// it. The live mode beside ``InProcessDaemon``'s dispatcher alone (as HummingbirdTesting has `.live` beside
/// `.router`). What needs the process itself (signals, systemd, crashes, power cuts, the socket's framing,
/// packaging) starts one (`PizzadProcess`, in PizzaDaemonTests).
///
/// Its log is its own (``output``), as a process's would be. Released without a stop, it stops and waits for that.
final class LiveDaemon: DaemonUnderTest, @unchecked Sendable {
    let directory: String
    let socket: String
    let database: String
    private let folder: TemporaryFolder?
    /// Its event loops: two of its own, as its process would have (several live daemons on NIO's two shared loops
    /// waited for each other's loads).
    private let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    /// Its loop to the centre, niced as pizzad's is (one each, as each process has).
    private let shipping = PostgresCentralClient.makeShippingGroup()
    private let control: DaemonControl
    /// The threads its tasks run on, its own.
    private let threads: DaemonThreads
    private let log = Locked(String())
    private let exitCode = Locked<Int32?>(nil)

    /// Starts the daemon with `config` (YAML text, written as `pizzad.yaml` in its folder) and `environment` (over
    /// the test process's, without its `PIZZAD_` variables); waits until it serves unless `wait` is false.
    init(
        config: String? = nil, environment: [String: String] = [:], directory: String? = nil,
        database: String? = nil, socket: String? = nil, wait: Bool = true
    ) throws {
        let threads = DaemonThreads(name: "live-pizzad")
        self.threads = threads
        control = DaemonControl(
            usesSignals: false, taskExecutor: threads, eventLoopGroup: loops, shippingLoop: shipping.next())
        folder = directory == nil ? try TemporaryFolder("pizzad-live") : nil
        let directory = directory ?? folder!.path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.socket = socket ?? directory + "/pizzad.sock"
        self.database = database ?? directory + "/pizzad.sqlite"
        var file: String?
        if let config {
            file = directory + "/pizzad.yaml"
            try Data(config.utf8).write(to: URL(fileURLWithPath: file!))
        }
        let loader = ConfigurationLoader(
            flags: .init(config: file, database: self.database, socket: self.socket),
            environment: PizzadEnvironment.scrubbed(overriding: environment))
        let log = log
        let logger = Logger(label: "pizzad") { label in
            DaemonLogHandler(label: label) { line in log.withLock { $0 += line } }
        }
        let control = control
        let exitCode = exitCode
        let loops = loops
        let shipping = shipping
        // On threads of its own (DaemonThreads), not the pools the tests block.
        Task.detached(executorPreference: threads) {
            let code = await Daemon.run(loader, logger: logger, control: control)
            try? await loops.shutdownGracefully()
            try? await shipping.shutdownGracefully()
            exitCode.withLock { $0 = code }
        }
        if wait { try waitUntilServing() }
    }

    /// Everything it logged so far.
    var output: String { log.withLock { $0 } }

    /// Its process: the test's own.
    var pid: Int32 { getpid() }

    /// Its exit code once it stopped; nil while it runs.
    var exited: Int32? { exitCode.withLock { $0 } }

    /// Waits for its "ready" line and its socket accepting connections; throws with its log if it stops instead.
    func waitUntilServing(timeout: Double = 60) throws {
        let deadline = TimeLimit(seconds: timeout)
        while deadline.remains {
            if let code = exited { throw HarnessError("pizzad stopped with \(code) while starting:\n\(output)") }
            if output.contains(" ready "), (try? RawConnection(path: socket)) != nil { return }
            usleep(10_000)
        }
        throw HarnessError("pizzad did not serve within \(timeout) s:\n\(output)")
    }

    /// Stops it as SIGTERM would (requests under way finish, the database is checkpointed) and returns its exit code.
    @discardableResult
    func stop(timeout: Double = 60) throws -> Int32 {
        let control = control
        Task.detached(executorPreference: threads) { await control.stop() }
        return try waitForExit(timeout: timeout)
    }

    /// Waits for it to stop by itself (a bad configuration, a start that failed) and returns its exit code.
    func waitForExit(timeout: Double = 20) throws -> Int32 {
        let deadline = TimeLimit(seconds: timeout)
        while deadline.remains {
            if let code = exited { return code }
            usleep(10_000)
        }
        throw HarnessError("pizzad did not stop within \(timeout) s:\n\(output.suffix(2000))")
    }

    /// Re-reads its configuration as SIGHUP would, and waits for that to finish.
    func reload() async { await control.reload() }

    deinit {
        if exited == nil { _ = try? stop() }
        threads.finish()
        folder?.remove()
    }
}
