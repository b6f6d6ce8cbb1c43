import Logging
import PizzaCore
import PizzaStorage

/// Delivers the audit log to one printer or webhook, in order: reads the entries after its cursor, skips those not
/// for it, sends each of the others until the receiver confirms, and only then moves the cursor (in the next group
/// commit). A failure waits as the destination says and tries the same entry again, so nothing overtakes it; a
/// destination that fails past its limit is disabled, logged at priority err, and waits for `pizzactl outbox retry`.
final class Deliverer: Sendable {
    let destination: any Destination
    private let store: SQLiteOrderStore
    private let logger: Logger
    private let clock: any DeliveryClock
    /// Rung by every commit: wakes the deliverer while it waits for work.
    private let bell = Doorbell()
    /// Rung by `pizzactl outbox retry` alone: wakes it while it waits out a failure or a disabled state, which
    /// commits must not do (at a full kitchen's rate, a wake-up per commit per dead receiver cost 10 µs an order).
    private let retryBell = Doorbell()
    private let state = Locked(Progress())

    /// What the deliverer knows beyond its row.
    struct Progress: Sendable {
        var cursor: OutboxCursor?
        var failures = 0
        var nextAttemptAt: Timestamp?
        var retryNow = false
        var delivered: Int64 = 0
        var failed: Int64 = 0
        var lastDeliveredAt: Timestamp?
        /// When nothing waits, or the current entry is being sent.
        var busy = false
    }

    init(
        destination: any Destination, store: SQLiteOrderStore, logger: Logger,
        clock: any DeliveryClock = SystemDeliveryClock()
    ) {
        self.destination = destination
        self.store = store
        self.clock = clock
        var logger = logger
        logger[metadataKey: destination.kind.rawValue] = "\(destination.name)"
        self.logger = logger
    }

    /// A change committed: look at it.
    func ring() { bell.ring() }

    /// `pizzactl outbox retry NAME`: enable it again if it was disabled, and try the waiting entry now.
    func retryNow() {
        state.withLock { $0.retryNow = true }
        retryBell.ring()
        bell.ring()
    }

    var progress: Progress { state.value }

    private func takeRetry() -> Bool {
        state.withLock { state in
            defer { state.retryNow = false }
            return state.retryNow
        }
    }

    /// Reads (or makes) its cursor: done before the daemon serves, so that no change made after start is missed.
    func prepare() async throws {
        let cursor = try await store.outboxCursor(name: destination.name, kind: destination.kind.rawValue)
        publish(cursor)
    }

    /// Runs until the task is cancelled; ``prepare()`` first.
    func run() async {
        guard var cursor = state.withLock({ $0.cursor }) else {
            logger.error("outbox: started before its cursor was read")
            return
        }
        publish(cursor)
        if let reason = cursor.disabledReason {
            logger.error(
                "outbox: disabled; pizzactl outbox retry \(destination.name) enables it",
                metadata: [
                    "reason": "\(reason)"
                ])
        }
        var lastIdle = ContinuousClock.now - destination.idleInterval
        while !Task.isCancelled {
            if cursor.disabledAt != nil {
                await retryBell.wait(timeout: .seconds(60))
                if takeRetry() { await enable(&cursor) }
                continue
            }
            _ = takeRetry()
            let entries: [AuditEntry]
            do {
                entries = try store.auditEntries(after: cursor.deliveredSeq, limit: 64)
            } catch {
                logger.warning("outbox: cannot read the audit log", metadata: ["error": "\(error)"])
                await bell.wait(timeout: .seconds(1))
                continue
            }
            if entries.isEmpty {
                if ContinuousClock.now - lastIdle >= destination.idleInterval {
                    await destination.idle()
                    lastIdle = .now
                }
                await bell.wait(timeout: destination.idleInterval)
                continue
            }
            var skippedTo: Int64?
            for entry in entries {
                guard destination.wants(entry) else {
                    skippedTo = entry.seq
                    continue
                }
                if let seq = skippedTo {
                    await move(&cursor, to: seq)
                    skippedTo = nil
                }
                guard await send(entry, &cursor) else { break }
                lastIdle = .now
            }
            if let seq = skippedTo { await move(&cursor, to: seq) }
        }
    }

    /// Moves the cursor past entries that are not for this destination.
    private func move(_ cursor: inout OutboxCursor, to seq: Int64) async {
        do {
            try await store.recordDelivered(name: destination.name, seq: seq)
            cursor.deliveredSeq = seq
            publish(cursor)
        } catch {
            logger.warning("outbox: cannot record progress", metadata: ["error": "\(error)"])
        }
    }

    private func enable(_ cursor: inout OutboxCursor) async {
        do {
            try await store.recordDisabled(name: destination.name, reason: nil)
        } catch {
            logger.warning("outbox: cannot record that it is enabled", metadata: ["error": "\(error)"])
            return
        }
        cursor.disabledAt = nil
        cursor.disabledReason = nil
        cursor.failingSince = nil
        state.withLock { $0.failures = 0 }
        logger.notice("outbox: enabled again; sending what waits")
        publish(cursor)
    }

    /// Sends `entry` until it is delivered (true), or the destination is disabled or the task cancelled (false).
    private func send(_ entry: AuditEntry, _ cursor: inout OutboxCursor) async -> Bool {
        while !Task.isCancelled {
            let again = cursor.attemptedSeq >= entry.seq
            if destination.marksAttempts {
                do {
                    try await store.recordAttempt(name: destination.name, seq: entry.seq)
                    cursor.attemptedSeq = entry.seq
                } catch {
                    logger.warning("outbox: cannot record an attempt", metadata: ["error": "\(error)"])
                    await bell.wait(timeout: .seconds(1))
                    continue
                }
            }
            state.withLock { $0.busy = true }
            let outcome = await destination.deliver(entry, again: again)
            state.withLock { $0.busy = false }
            guard let error = outcome.error else {
                do {
                    try await store.recordDelivered(name: destination.name, seq: entry.seq)
                } catch {
                    // Sent, and not recorded: it goes again (with the same id) once the disk takes writes.
                    logger.warning("outbox: delivered, and cannot record it", metadata: ["error": "\(error)"])
                    await bell.wait(timeout: .seconds(1))
                    continue
                }
                if cursor.failingSince != nil {
                    logger.notice("outbox: delivering again", metadata: ["seq": "\(entry.seq)"])
                }
                cursor.deliveredSeq = entry.seq
                cursor.failingSince = nil
                cursor.lastError = nil
                state.withLock { state in
                    state.failures = 0
                    state.nextAttemptAt = nil
                    state.delivered += 1
                    state.lastDeliveredAt = clock.now()
                }
                publish(cursor)
                return true
            }
            if destination.marksAttempts, !again, case .failed = outcome {
                // Nothing was sent (unreachable, or not ready) and no attempt before this one may have printed:
                // the next attempt is no reprint. After an attempt whose outcome is unknown, a printer that then
                // answers "paper out" has sent nothing this time, and the earlier ticket may still be on paper.
                try? await store.recordAttempt(name: destination.name, seq: entry.seq - 1)
                cursor.attemptedSeq = entry.seq - 1
            }
            let now = clock.now()
            let failures = state.withLock { state in
                state.failures += 1
                state.failed += 1
                return state.failures
            }
            if cursor.failingSince == nil || cursor.lastError != error {
                logger.warning(
                    "outbox: not delivered; trying again", metadata: ["seq": "\(entry.seq)", "error": "\(error)"])
                try? await store.recordFailure(name: destination.name, error: error, at: now)
            }
            let since = cursor.failingSince ?? now
            cursor.failingSince = since
            cursor.lastError = error
            let delay = destination.delay(afterFailures: failures, outcome: outcome)
            var reason: String?
            if case .gone = outcome {
                reason = "the receiver answered that it is gone: \(error)"
            } else if let limit = destination.failureLimit,
                now.millisecondsSince1970 - since.millisecondsSince1970 > limit.milliseconds
            {
                reason = "failing since \(since) (longer than \(limit.milliseconds / 60_000) minutes): \(error)"
            } else if delay == nil {
                reason = "its retries are over (\(failures) attempts since \(since)): \(error)"
            }
            if let reason {
                logger.error(
                    "outbox: disabled; pizzactl outbox retry \(destination.name) enables it",
                    metadata: ["seq": "\(entry.seq)", "reason": "\(reason)"])
                try? await store.recordDisabled(name: destination.name, reason: reason, at: now)
                cursor.disabledAt = now
                cursor.disabledReason = reason
                publish(cursor)
                return false
            }
            let wait = delay ?? .seconds(1)
            state.withLock {
                $0.nextAttemptAt = Timestamp(millisecondsSince1970: now.millisecondsSince1970 + wait.milliseconds)
            }
            publish(cursor)
            await clock.wait(wait, orUntil: retryBell) { [self] in takeRetry() }
            state.withLock { $0.nextAttemptAt = nil }
        }
        return false
    }

    private func publish(_ cursor: OutboxCursor) { state.withLock { $0.cursor = cursor } }
}
