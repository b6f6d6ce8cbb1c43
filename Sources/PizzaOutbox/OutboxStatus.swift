public import PizzaCore

/// Where one printer or webhook stands: what `pizzactl outbox` shows and the metrics count.
public struct OutboxStatus: Sendable {
    /// What it is doing.
    public enum State: String, Sendable {
        /// Nothing waits.
        case idle
        /// Messages wait and are being sent.
        case sending
        /// The last attempt failed; it tries again at `nextAttemptAt`.
        case failing
        /// It failed past its limit (or answered 410): nothing is sent until `pizzactl outbox retry`.
        case disabled
    }

    /// Its configured name.
    public var name: String
    /// A printer or a webhook.
    public var kind: DestinationKind
    /// The printer's address or the webhook's URL.
    public var target: String
    /// What it is doing now.
    public var state: State
    /// The last audit entry it has dealt with.
    public var deliveredSeq: Int64
    /// Messages waiting for it.
    public var waiting: Int64
    /// When the oldest waiting message was committed.
    public var oldestWaitingAt: Timestamp?
    /// When its current run of failures began; nil while it delivers.
    public var failingSince: Timestamp?
    /// The last failure, in words.
    public var lastError: String?
    /// When the waiting message is tried next, while it fails.
    public var nextAttemptAt: Timestamp?
    /// When it was disabled; nil while enabled.
    public var disabledAt: Timestamp?
    /// Why it was disabled.
    public var disabledReason: String?
    /// A printer's status as last seen (nil for a webhook, or before it was asked).
    public var printer: EscPos.Status?
    /// Messages delivered since start.
    public var delivered: Int64
    /// Attempts that failed since start.
    public var failed: Int64
}
