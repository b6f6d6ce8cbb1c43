public import CoreMetrics
import Foundation
public import Logging
public import PizzaCore
public import PizzaStorage
public import ServiceLifecycle

/// Ships every change of this shop, in order and exactly once in effect, to a central PostgreSQL.
///
/// `audit_log` is the outbox: each change's complete entry is committed with the change. The replicator reads the
/// entries after the shipped mark from the read pool, sends them in batches to `pizzad_ingest` (one central
/// transaction per batch), and records the new mark here only after the centre committed, so a crash in between
/// ships a batch twice and the centre ignores the copy. As a repository subscriber it is woken after each commit,
/// so under load the lag is about one batch. It never slows the kitchen: it only reads, its mark rides along in
/// the next group commit, and when the centre is down the backlog simply waits in `audit_log` while it retries
/// with capped exponential backoff and jitter, logging each distinct error once. A centre that answers slowly
/// (saturated) gets fewer, larger batches (``BatchPacing``).
public final class Replicator: Service, OrderRepositoryDelegate, Sendable {
    /// Where and how it ships (`replication.*`).
    public let configuration: ReplicationConfiguration
    let store: SQLiteOrderStore
    private let migrations: [Migration]
    let client: any CentralClient
    private let logger: Logger
    private let metrics: ReplicationMetrics
    private let doorbell = Doorbell()
    private let background = BackgroundThread()
    private let state: Locked<Progress>

    /// The longest wait between attempts.
    static let maximumBackoff: Duration = .seconds(30)

    private struct Progress {
        var state: ReplicationStatus.State = .connecting
        var connected = false
        var lastError: ReplicationError?
        var lastErrorAt: Timestamp?
        var shippedSeq: Int64 = 0
        var batches: Int64 = 0
        var events: Int64 = 0
        var errors: Int64 = 0
    }

    /// A shipper for `store`'s changes; `migrations` are the central schema's (`migrations/central`). The centre is
    /// the PostgreSQL the configuration names, unless `client` reaches it another way. Its metrics are made by
    /// `metrics`.
    public init(
        configuration: ReplicationConfiguration, store: SQLiteOrderStore, migrations: [Migration],
        metrics: any MetricsFactory, environment: [String: String], logger: Logger,
        client: (any CentralClient)? = nil
    ) throws {
        self.configuration = configuration
        self.store = store
        self.migrations = migrations
        var logger = logger
        logger[metadataKey: "peer"] = "\(configuration.peer)"
        self.logger = logger
        self.client =
            client ?? PostgresCentralClient(configuration: configuration, environment: environment, logger: logger)
        self.metrics = ReplicationMetrics(factory: metrics)
        self.state = Locked(Progress(shippedSeq: try store.replicationMark().shippedSeq))
    }

    /// What each of its metrics means, for the `# HELP` lines.
    public static var metricsHelp: [String: String] { ReplicationMetrics.help }

    // MARK: Subscriber

    /// Wakes the shipper: there is a new entry to ship.
    public func repository(didCommit change: OrderChange, latency: Duration) { doorbell.ring() }

    /// An entry that belongs to no order ships like any other.
    public func repository(didCommit change: ShopChange) { doorbell.ring() }

    // MARK: Status

    /// Where shipping stands now.
    public func status() -> ReplicationStatus {
        let progress = state.value
        let backlog = try? store.replicationBacklog(after: progress.shippedSeq)
        let oldest = backlog?.oldestUnshippedAt.map {
            Double(max(0, Timestamp.now().millisecondsSince1970 - $0.millisecondsSince1970)) / 1000
        }
        return ReplicationStatus(
            peer: configuration.peer, shopID: configuration.shopID, state: progress.state,
            connected: progress.connected, lastError: progress.lastError?.description,
            lastErrorKind: progress.lastError?.name, lastErrorAt: progress.lastErrorAt,
            shippedSeq: progress.shippedSeq, latestSeq: max(backlog?.latestSeq ?? 0, progress.shippedSeq),
            backlogSeconds: oldest ?? 0, batches: progress.batches, events: progress.events, errors: progress.errors)
    }

    /// Sets the backlog, lag and connection gauges; called when the metrics are rendered.
    public func refreshMetrics() { metrics.update(status()) }

    // MARK: Running

    /// Ships until the service group shuts down, retrying with backoff while the centre is away.
    public func run() async throws {
        logger.info("replication on", metadata: ["shop": "\(configuration.shopID)"])
        await cancelWhenGracefulShutdown { await self.ship() }
    }

    private func ship() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await session { failures = 0 }
            } catch {
                if Task.isCancelled || error is CancellationError { break }
                let failure = error as? ReplicationError ?? .central(detail: "\(error)")
                report(failure)
                if failure.isFatal {
                    // Only an operator can fix this; until the next start, stay out of the centre's way.
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                    break
                }
                failures += 1
                try? await Task.sleep(for: Self.backoff(after: failures))
            }
        }
        state.withLock { $0.connected = false }
    }

    /// The wait before attempt `failures + 1`: 0.25 s doubling to ``maximumBackoff``, each drawn between half and
    /// all of it, so many shops do not come back at the same instant.
    public static func backoff(after failures: Int) -> Duration {
        let ceiling = min(Self.maximumBackoff, .milliseconds(250) * (1 << min(failures - 1, 16)))
        return ceiling * Double.random(in: 0.5...1.0)
    }

    /// One connection's life: connect, check the central schema, ship until an error or the end.
    private func session(shipped: () -> Void) async throws {
        state.withLock { $0.state = .connecting }
        let connecting = ContinuousClock.now
        let central = try await client.connect()
        let setUp = ContinuousClock.now - connecting
        do {
            let schema = try await central.prepareSchema(migrations)
            try await shipBatches(central, schema: schema, setUp: setUp, shipped: shipped)
            await central.close()
        } catch {
            await central.close()
            throw error
        }
    }

    /// `setUp`: how long the connection took to set up (the pacing's first prompt answer).
    private func shipBatches(
        _ central: any CentralSession, schema: Int, setUp: Duration, shipped: () -> Void
    ) async throws {
        let mark = try store.replicationMark()
        var position = mark.shippedSeq
        var marks = MarkWriter(store: store, recorded: mark.shippedSeq)
        connected()
        var previousStart: ContinuousClock.Instant?
        var pacing = BatchPacing(batchSize: configuration.batchSize, connected: setUp)
        do {
            while !Task.isCancelled {
                if let previousStart {
                    try? await Task.sleep(until: previousStart + pacing.spacing, clock: .continuous)
                }
                // What rang before this read is in it: a quiet shop's next wait is for what commits after.
                doorbell.silence()
                let batch = try await background.run { [store, configuration, position] in
                    try ShippingBatch(store.auditEntries(after: position, limit: configuration.batchSize))
                }
                guard let last = batch.last else {
                    previousStart = nil  // the first change after a quiet spell goes at once
                    pacing.quiet()
                    try await marks.flush()
                    recovered()
                    state.withLock { $0.state = .idle }
                    await doorbell.wait(timeout: .seconds(configuration.idleCheckSeconds))
                    if try store.replicationBacklog(after: position).latestSeq == position { try await central.ping() }
                    continue
                }
                state.withLock { $0.state = .shipping }
                let sent = ContinuousClock.now
                previousStart = batch.count < configuration.batchSize ? sent : nil
                let answer = try await central.ingest(
                    shop: configuration.shopID, key: mark.shopKey, batch: batch, schema: schema)
                let answerTime = ContinuousClock.now - sent
                let wasPaced = pacing.spacing > BatchPacing.floor
                pacing.answered(entries: batch.count, in: answerTime)
                if !wasPaced, pacing.spacing > BatchPacing.floor {
                    logger.notice(
                        "the centre is queueing: batches spaced further apart until it answers promptly",
                        metadata: ["spacing": "\(pacing.spacing)", "answered in": "\(answerTime)"])
                } else if wasPaced, pacing.spacing == BatchPacing.floor {
                    logger.info("the centre answers promptly again: batches as usual")
                }
                if answer.rewind == true {
                    let cursor = answer.cursor ?? 0
                    logger.notice(
                        "the centre is behind this shop: re-sending from its cursor",
                        metadata: ["cursor": "\(cursor)", "sent": "\(batch.first)"])
                    position = cursor
                    continue
                }
                guard let cursor = answer.cursor, cursor >= last.seq else {
                    throw ReplicationError.central(
                        detail: "the centre answered cursor \(answer.cursor ?? -1) for entries up to \(last.seq)")
                }
                position = last.seq
                try await marks.shipped(seq: last.seq, hash: last.hash)
                state.withLock {
                    $0.shippedSeq = last.seq
                    $0.batches += 1
                    $0.events += Int64(batch.count)
                }
                metrics.shippedBatch(events: batch.count)
                recovered()
                shipped()
            }
            try? await marks.flush()
        } catch {
            try? await marks.flush()
            throw error
        }
    }

    /// Connected and the schema checked. The last error stays until something works (``recovered()``): a batch
    /// the centre refuses at every attempt (its disk full) is then said once, not once per reconnection.
    private func connected() {
        let after = state.withLock { progress -> ReplicationError? in
            progress.connected = true
            progress.state = .shipping
            return progress.lastError
        }
        if after == nil { logger.info("replication connected") }
    }

    /// A batch went in, or there was nothing to send: whatever went wrong before is over.
    private func recovered() {
        let after = state.withLock { progress -> ReplicationError? in
            defer { progress.lastError = nil }
            return progress.lastError
        }
        if let after { logger.notice("replication connected again", metadata: ["after": "\(after.name)"]) }
    }

    private func report(_ error: ReplicationError) {
        let isNew = state.withLock { progress -> Bool in
            let isNew = progress.lastError != error
            progress.lastError = error
            progress.lastErrorAt = .now()
            progress.errors += 1
            progress.connected = false
            progress.state = error.isFatal ? .stopped : .retrying
            return isNew
        }
        metrics.failed(error)
        if isNew {
            logger.log(
                level: error.isFatal ? .error : .warning, "replication: \(error)", metadata: ["kind": "\(error.name)"])
        }
    }
}
