import CoreMetrics
import Logging
import PizzaCore
import ServiceLifecycle

/// Keeps systemd informed: a `STATUS=` line a person can read ("serving; 3 placed, 2 baking"), and `WATCHDOG=1`
/// at half of `$WATCHDOG_USEC`, sent only while the writer answers and the socket accepts, so a wedged database
/// stops the pings and systemd restarts the daemon. Also logs a storage failure once, and its recovery once.
final class HealthService: Service {
    private let state: DaemonState
    private let server: ControlSocketServer
    private let notifier: SystemdNotifier
    private let logger: Logger

    private let walFrames: Gauge
    private let checkpointLag: Gauge
    private let checkpointStarved: CoreMetrics.Counter

    /// The `# HELP` text of the metrics it keeps.
    static let help: [String: String] = [
        "pizzad_wal_frames": "Frames in the write-ahead log after the last checkpoint attempt.",
        "pizzad_wal_checkpoint_lag_frames": "WAL frames a checkpoint could not copy back (a reader holds them).",
        "pizzad_wal_checkpoint_starved_total": "Checkpoint attempts that could not finish because of a long reader.",
    ]

    init(
        state: DaemonState, server: ControlSocketServer, notifier: SystemdNotifier, logger: Logger,
        onStart: @escaping @Sendable () async -> Void
    ) {
        let factory = state.metricsBackend.factory
        walFrames = Gauge(label: "pizzad_wal_frames", factory: factory)
        checkpointLag = Gauge(label: "pizzad_wal_checkpoint_lag_frames", factory: factory)
        checkpointStarved = CoreMetrics.Counter(label: "pizzad_wal_checkpoint_starved_total", factory: factory)
        state.metricsBackend.describe(Self.help)
        self.onStart = onStart
        self.state = state
        self.server = server
        self.notifier = notifier
        self.logger = logger
    }

    /// Called once the service group runs (its signal handlers are in place): the daemon's readiness.
    private let onStart: @Sendable () async -> Void

    func run() async throws {
        await onStart()
        try? await cancelWhenGracefulShutdown { try await self.loop() }
    }

    private func loop() async throws {
        let interval = notifier.watchdogInterval.map { min($0, .seconds(5)) } ?? .seconds(5)
        var lastStatus = ""
        // A storage problem found at start (a read-only file) is logged at once, not a round later; the rest of
        // a round (the writer probe, the checkpoint, the per-status counts) has just been done for READY=1.
        var storageWasFailing = false
        var lastReopenError = ""
        if let failure = state.store.currentStorageFailure {
            logger.error("storage is failing; changes are refused until it recovers: \(failure)")
            storageWasFailing = true
        }
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            if Task.isShuttingDownGracefully { return }
            let healthy = await writerAnswers(within: .seconds(2)) && server.isServing
            // A read-only database has nothing to checkpoint; trying would open a read transaction for nothing.
            if healthy, !state.store.isReadOnly { await checkpoint() }
            if state.store.isReadOnly {
                do {
                    _ = try await state.store.reopenIfWritable()  // then logged below as "storage recovered"
                } catch {
                    // Once per distinct error, not every round.
                    if "\(error)" != lastReopenError {
                        logger.warning("the database looks writable but could not be reopened for writing: \(error)")
                    }
                    lastReopenError = "\(error)"
                }
            }
            if let failure = state.store.currentStorageFailure {
                if !storageWasFailing {
                    logger.error("storage is failing; changes are refused until it recovers: \(failure)")
                }
                storageWasFailing = true
            } else if storageWasFailing {
                logger.notice("storage recovered; changes are accepted again")
                storageWasFailing = false
            }
            let status = statusLine()
            var message = status == lastStatus ? "" : "STATUS=\(status)"
            lastStatus = status
            if healthy, notifier.watchdogInterval != nil { message += message.isEmpty ? "WATCHDOG=1" : "\nWATCHDOG=1" }
            if !healthy { logger.warning("health check failed: not pinging the watchdog") }
            if !message.isEmpty { notifier.notify(message) }
        }
    }

    /// Whether the last checkpoint was held back by a reader (logged once per episode).
    private let starved = Locked(false)

    /// A passive checkpoint beside the writer (on the store's checkpointer): copies what it can back into the
    /// database file and reports what a long read transaction (an `sqlite3` shell left open, say) keeps it from
    /// copying, so a growing WAL shows in the metrics and the log instead of going unnoticed.
    private func checkpoint() async {
        guard let (log, done) = try? await state.store.checkpointWAL() else { return }
        walFrames.record(log)
        checkpointLag.record(max(0, log - done))
        let isStarved = log > done
        let wasStarved = starved.withLock { value in
            defer { value = isStarved }
            return value
        }
        if isStarved {
            checkpointStarved.increment()
            if !wasStarved {
                logger.warning(
                    "a long read transaction holds the WAL back: \(log - done) of \(log) frames cannot be checkpointed")
            }
        } else if wasStarved {
            logger.notice("the WAL is checkpointed again")
        }
    }

    /// Whether a probe of the writer is still waiting (a wedged writer never answers it).
    private let probeInFlight = Locked(false)

    /// Whether the writer runs a trivial statement within `timeout`. A wedged writer does not; its probe then
    /// stays queued, and no second probe is queued behind it.
    private func writerAnswers(within timeout: Duration) async -> Bool {
        let alreadyWaiting = probeInFlight.withLock { waiting in
            defer { waiting = true }
            return waiting
        }
        if alreadyWaiting { return false }
        let store = state.store
        let probeInFlight = self.probeInFlight
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answered = Locked(false)
            let finish: @Sendable (Bool) -> Void = { healthy in
                let first = answered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: healthy) }
            }
            Task {
                let healthy = (try? await store.withWriter { db in _ = try db.scalar("SELECT 1") }) != nil
                probeInFlight.withLock { $0 = false }
                finish(healthy)
            }
            Task {
                try? await Task.sleep(for: timeout)
                finish(false)
            }
        }
    }

    func statusLine() -> String { Self.statusLine(state: state) }

    /// "serving; 3 placed, 2 baking" or "storage failing: …". The counts are the metrics collector's, which
    /// follow every commit, so the line costs no query even with millions of orders.
    static func statusLine(state: DaemonState) -> String {
        if let failure = state.store.currentStorageFailure { return "storage failing: \(failure)" }
        let counts = state.metrics.ordersByStatus
        let parts = OrderStatus.active.compactMap { status in
            (counts[status] ?? 0) > 0 ? "\(counts[status]!) \(status.rawValue)" : nil
        }
        return parts.isEmpty ? "serving; no orders under way" : "serving; " + parts.joined(separator: ", ")
    }
}
