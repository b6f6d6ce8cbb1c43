import Logging
import PizzaCore
import ServiceLifecycle
import UnixSignals

/// Re-reads the configuration on `SIGHUP` (`systemctl reload pizzad`) and applies what can change live: the
/// menu, the log level and the access lists. Logs the changed keys it applied and those that need a restart, both
/// from ``ConfigurationChange`` (every key, sorted by the schema); a bad new configuration is refused whole, logged
/// at priority err, and the running one stays.
final class ReloadService: Service {
    private let loader: ConfigurationLoader
    private let current: Locked<DaemonConfiguration>
    private let state: DaemonState
    private let notifier: SystemdNotifier
    private let logger: Logger

    init(
        loader: ConfigurationLoader, current: DaemonConfiguration, state: DaemonState, notifier: SystemdNotifier,
        logger: Logger, trapsHangUp: Bool = true
    ) async {
        self.signals = trapsHangUp ? await UnixSignalsSequence(trapping: .sighup) : nil
        self.loader = loader
        self.current = Locked(current)
        self.state = state
        self.notifier = notifier
        self.logger = logger
    }

    /// Traps `SIGHUP` (whose default action would end the process) as soon as the service exists; nil in a test's
    /// process, where only ``DaemonControl/reload()`` reloads.
    private let signals: UnixSignalsSequence?

    func run() async throws {
        guard let signals else { return try await gracefulShutdown() }
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
        let change = ConfigurationChange(from: previous, to: next)
        state.apply(next)
        DaemonLogHandler.sharedLevel = next.logLevel
        // A renewed certificate for the order API: served from the next connection on.
        if let api = state.api.withLock({ $0 }), next.api.certificatePath != nil {
            do {
                try api.reloadCertificate()
                logger.notice(
                    "order API certificate read again", metadata: ["certificate": "\(next.api.certificatePath ?? "")"])
            } catch {
                logger.error("order API certificate not replaced, the one served is kept: \(error)")
            }
        }
        current.withLock { $0 = next }
        logger.notice(
            "configuration reloaded",
            metadata: [
                "applied": "\(ConfigurationChange.describe(change.applied))",
                "needs-restart": "\(ConfigurationChange.describe(change.needsRestart))",
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
