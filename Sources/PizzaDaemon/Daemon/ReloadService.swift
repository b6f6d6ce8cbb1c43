import Logging
import PizzaCore
import ServiceLifecycle
import UnixSignals

/// Re-reads the configuration on `SIGHUP` (`systemctl reload pizzad`) and applies what can change live: the
/// menu, the log level and the access lists. Logs what it applied and what needs a restart; a bad new
/// configuration is refused whole and the running one stays.
final class ReloadService: Service {
    private let loader: ConfigurationLoader
    private let current: Locked<DaemonConfiguration>
    private let state: DaemonState
    private let notifier: SystemdNotifier
    private let logger: Logger

    init(
        loader: ConfigurationLoader, current: DaemonConfiguration, state: DaemonState, notifier: SystemdNotifier,
        logger: Logger
    ) async {
        self.signals = await UnixSignalsSequence(trapping: .sighup)
        self.loader = loader
        self.current = Locked(current)
        self.state = state
        self.notifier = notifier
        self.logger = logger
    }

    /// Traps `SIGHUP` (whose default action would end the process) as soon as the service exists.
    private let signals: UnixSignalsSequence

    func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            await reload()
        }
    }

    func reload() async {
        notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
        defer { notifier.notify("READY=1") }
        let next: DaemonConfiguration
        do {
            next = try await loader.load()
        } catch {
            logger.error("reload refused, keeping the running configuration: \(error)")
            return
        }
        let previous = current.withLock { $0 }
        var applied = state.apply(next)
        if next.logLevel != previous.logLevel {
            DaemonLogHandler.sharedLevel = next.logLevel
            applied.append("log level \(next.logLevel)")
        }
        var needsRestart: [String] = []
        if next.databasePath != previous.databasePath { needsRestart.append("database.path") }
        if next.synchronous != previous.synchronous { needsRestart.append("database.synchronous") }
        if next.busyTimeoutMilliseconds != previous.busyTimeoutMilliseconds {
            needsRestart.append("database.busyTimeoutMs")
        }
        if next.socketPath != previous.socketPath { needsRestart.append("socket.path") }
        if next.socketMode != previous.socketMode { needsRestart.append("socket.mode") }
        if next.socketGroup != previous.socketGroup { needsRestart.append("socket.group") }
        if next.maxConnections != previous.maxConnections { needsRestart.append("socket.maxConnections") }
        if next.shutdownGraceSeconds != previous.shutdownGraceSeconds { needsRestart.append("shutdown.graceSeconds") }
        if next.metricsListen != previous.metricsListen { needsRestart.append("metrics.listen") }
        current.withLock { $0 = next }
        logger.notice(
            "configuration reloaded",
            metadata: [
                "applied": "\(applied.isEmpty ? "nothing changed" : applied.joined(separator: ", "))",
                "needs-restart": "\(needsRestart.isEmpty ? "nothing" : needsRestart.joined(separator: ", "))",
            ])
    }

    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}

#if canImport(Glibc)
    import Glibc
#endif
