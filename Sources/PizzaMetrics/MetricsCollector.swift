public import CoreMetrics
public import PizzaCore

/// Counts what the repository commits, through swift-metrics (on the factory ``PrometheusBackend`` chose).
///
/// A repository subscriber on the after-commit phase: it never slows or fails a change. Every metric it exports
/// is in ``help`` (and the metrics table in docs/OPERATIONS.md): orders created, transitions, orders per status, the time each
/// order spends in each stage, cancellations, failed changes by error, and the writer's group commits.
public final class MetricsCollector: OrderRepositoryDelegate {
    private let factory: any MetricsFactory
    private let created: Counter
    private let transitions: [OrderStatus: Counter]
    private let inStatus: [OrderStatus: Meter]
    private let commitLatency: Timer
    private let failures: Locked<[FailureKey: Counter]>
    private let stageDurations: [OrderStatus: Timer]
    private let fulfilment: Timer
    private let cancelled: [OrderStatus: Counter]
    private let batchSize: Recorder
    private let batchDuration: Timer
    private let counts: Locked<[OrderStatus: Int]>
    private let payments: [Tender: Counter]
    private let refunds: [Tender: Counter]
    private let discounted: Counter

    private struct FailureKey: Hashable {
        var operation: OrderOperation
        var error: String
    }

    /// The statuses an order waits in before the kitchen moves it on: what the stage histograms are labelled by.
    public static let stages: [OrderStatus] = OrderStatus.active

    /// The buckets of its duration histograms, by name: kitchen times are minutes, not milliseconds (a second to
    /// four hours); a group commit's are micro- to milliseconds.
    public static let durationBuckets: [String: [Duration]] = [
        "pizzad_order_stage_duration_seconds": [
            1, 5, 15, 30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 7200, 14400,
        ].map { .seconds($0) },
        "pizzad_order_fulfilment_duration_seconds": [
            300, 600, 900, 1200, 1500, 1800, 2400, 3000, 3600, 5400, 7200, 14400,
        ].map { .seconds($0) },
        "pizzad_group_commit_duration_seconds": [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1),
        ],
    ]

    /// The buckets of its value histograms, by name.
    public static let valueBuckets: [String: [Double]] = [
        "pizzad_group_commit_changes": [1, 2, 4, 8, 16, 32, 64, 128, 256]
    ]

    /// A collector starting from the current `counts` of orders in each status, its metrics made by `factory`.
    public init(counts: [OrderStatus: Int], factory: any MetricsFactory) {
        self.factory = factory
        self.counts = Locked(counts)
        created = Counter(label: "pizzad_orders_created_total", factory: factory)
        var transitions: [OrderStatus: Counter] = [:]
        var inStatus: [OrderStatus: Meter] = [:]
        for status in OrderStatus.allCases {
            transitions[status] = Counter(
                label: "pizzad_order_transitions_total", dimensions: [("to", status.rawValue)], factory: factory)
            let meter = Meter(label: "pizzad_orders", dimensions: [("status", status.rawValue)], factory: factory)
            meter.set(counts[status] ?? 0)
            inStatus[status] = meter
        }
        self.transitions = transitions
        self.inStatus = inStatus
        commitLatency = Timer(label: "pizzad_commit_duration_seconds", factory: factory)
        failures = Locked([:])
        var stageDurations: [OrderStatus: Timer] = [:]
        for status in Self.stages {
            stageDurations[status] = Timer(
                label: "pizzad_order_stage_duration_seconds", dimensions: [("status", status.rawValue)],
                factory: factory)
        }
        self.stageDurations = stageDurations
        fulfilment = Timer(label: "pizzad_order_fulfilment_duration_seconds", factory: factory)
        var cancelled: [OrderStatus: Counter] = [:]
        for status in OrderStatus.allCases where (try? status.applying(.cancel).get()) != nil {
            cancelled[status] = Counter(
                label: "pizzad_orders_cancelled_total", dimensions: [("from", status.rawValue)], factory: factory)
        }
        self.cancelled = cancelled
        var payments: [Tender: Counter] = [:]
        var refunds: [Tender: Counter] = [:]
        for tender in Tender.allCases {
            payments[tender] = Counter(
                label: "pizzad_payments_cents_total", dimensions: [("tender", tender.rawValue)], factory: factory)
            refunds[tender] = Counter(
                label: "pizzad_refunds_cents_total", dimensions: [("tender", tender.rawValue)], factory: factory)
        }
        self.payments = payments
        self.refunds = refunds
        discounted = Counter(label: "pizzad_discounts_cents_total", factory: factory)
        batchSize = Recorder(label: "pizzad_group_commit_changes", aggregate: true, factory: factory)
        batchDuration = Timer(label: "pizzad_group_commit_duration_seconds", factory: factory)
        // Storage failures exist from the start, so rate() and the alert on them see a zero rather than no series;
        // the other errors appear when they first happen.
        for operation in OrderOperation.changes {
            failure(operation: operation, error: "storage").increment(by: 0)
        }
    }

    /// Records one group commit of the writer: how many changes it wrote and how long it took.
    public func groupCommitted(changes: Int, duration: Duration) {
        batchSize.record(changes)
        batchDuration.recordNanoseconds(duration.nanoseconds)
    }

    private func failure(operation: OrderOperation, error: String) -> Counter {
        let key = FailureKey(operation: operation, error: error)
        return failures.withLock { failures in
            if let counter = failures[key] { return counter }
            let counter = Counter(
                label: "pizzad_changes_failed_total",
                dimensions: [("operation", key.operation.rawValue), ("error", key.error)], factory: factory)
            failures[key] = counter
            return counter
        }
    }

    public func repository(didCommit change: OrderChange, latency: Duration) {
        commitLatency.recordNanoseconds(latency.nanoseconds)
        switch change.kind {
        case .created: created.increment()
        case .paid, .refunded:
            if let payment = change.after.payments.last, payment.amount > 0 {
                payments[payment.tender]?.increment(by: payment.amount)
            } else if let refund = change.after.payments.last {
                refunds[refund.tender]?.increment(by: -refund.amount)
            }
        case .discounted: discounted.increment(by: change.after.discounts.last?.amount ?? 0)
        default: break
        }
        let before = change.before?.status
        let after = change.after.status
        if let before = change.before, before.status != after {
            recordStage(left: before, by: change)
        }
        if before != after {
            transitions[after]?.increment()
            if let before { inStatus[before]?.decrement() }
            inStatus[after]?.increment()
            counts.withLock { counts in
                if let before { counts[before, default: 0] -= 1 }
                counts[after, default: 0] += 1
            }
        }
    }

    /// Orders now in each status, as `pizzad_orders` shows them: counted from the database at start-up and kept
    /// up to date from every commit since, so reading them costs no query (the systemd STATUS line reads them
    /// every few seconds). Changes made to the file behind pizzad's back are not in them.
    public var ordersByStatus: [OrderStatus: Int] { counts.withLock { $0 } }

    /// The stage histograms: how long `before` had been in its status, and for a delivery, since it was placed.
    private func recordStage(left before: Cart, by change: OrderChange) {
        if change.after.status == .cancelled {
            cancelled[before.status]?.increment()
            return
        }
        func since(_ time: Timestamp) -> Int64 {
            max(0, change.at.millisecondsSince1970 - time.millisecondsSince1970)
        }
        if let entered = before.history.last?.at { stageDurations[before.status]?.recordMilliseconds(since(entered)) }
        if change.after.status == .delivered, let placed = before.history.last(where: { $0.to == .placed })?.at {
            fulfilment.recordMilliseconds(since(placed))
        }
    }

    public func repository(didFail operation: OrderOperation, error: any Error) {
        failure(operation: operation, error: Self.errorName(error)).increment()
    }

    /// The name the control socket gives `error` (`not_found`, `validation`, …; `storage` for the rest).
    static func errorName(_ error: any Error) -> String {
        switch error {
        case let error as OrderError: error.kind.rawValue
        case is PizzaError: "validation"
        default: "storage"
        }
    }

    /// What each of its metrics means, written as `# HELP` lines (swift-metrics has no place for help text).
    public static let help: [String: String] = [
        "pizzad_orders_created_total": "Orders created since the daemon started.",
        "pizzad_order_transitions_total": "Status changes since the daemon started, by the status entered.",
        "pizzad_orders": "Orders now in each status.",
        "pizzad_commit_duration_seconds": "Time from a change's request to its durable commit.",
        "pizzad_order_stage_duration_seconds":
            "Time an order spent in a status before it moved on to the next one (not counting cancellations).",
        "pizzad_order_fulfilment_duration_seconds": "Time from an order being placed to its delivery.",
        "pizzad_orders_cancelled_total":
            "Orders cancelled since the daemon started, by the status they were cancelled from.",
        "pizzad_changes_failed_total":
            "Changes refused or not stored, by operation and error name (as the socket names it).",
        "pizzad_group_commit_changes": "Changes written by one group commit (one SQLite transaction).",
        "pizzad_payments_cents_total": "Payments recorded since the daemon started, in cents, by tender.",
        "pizzad_refunds_cents_total": "Refunds recorded since the daemon started, in cents, by the refunded tender.",
        "pizzad_discounts_cents_total": "Discounts given since the daemon started, in cents.",
        "pizzad_group_commit_duration_seconds":
            "Time one group commit took, from BEGIN to a durable COMMIT (fsync included).",
    ]
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product + attoseconds / 1_000_000_000
    }
}
