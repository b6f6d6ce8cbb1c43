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

    public var name: String
    /// `printer` or `webhook`.
    public var kind: String
    /// The printer's address or the webhook's URL.
    public var target: String
    public var state: State
    /// The last audit entry it has dealt with.
    public var deliveredSeq: Int64
    /// Messages waiting for it, and when the oldest was committed.
    public var waiting: Int64
    public var oldestWaitingAt: Timestamp?
    public var failingSince: Timestamp?
    public var lastError: String?
    public var nextAttemptAt: Timestamp?
    public var disabledAt: Timestamp?
    public var disabledReason: String?
    /// A printer's status as last seen (nil for a webhook, or before it was asked).
    public var printer: EscPos.Status?
    /// Messages delivered and attempts failed since start.
    public var delivered: Int64
    public var failed: Int64
}
