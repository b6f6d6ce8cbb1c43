import PizzaCore
import PizzaStorage

/// A printer or a webhook, as the outbox's deliverer sees it: which audit entries it wants, how one is sent, and how
/// long to wait after failures.
protocol Destination: Sendable {
    /// Its configured name.
    var name: String { get }
    /// `printer` or `webhook`.
    var kind: DestinationKind { get }
    /// The events it is sent (for counting what waits).
    var events: Set<OutboxEvent> { get }
    /// Whether the outcome of a send can be unknown, so that an attempt is recorded before it (a printer: the next
    /// attempt says REPRINT).
    var marksAttempts: Bool { get }
    /// Whether `entry` is for it.
    func wants(_ entry: AuditEntry) -> Bool
    /// Sends `entry`; `again` when it may have been sent before (a crash, or an unknown outcome).
    func deliver(_ entry: AuditEntry, again: Bool) async -> DeliveryOutcome
    /// The wait before the next attempt after `failures` in a row; nil when its schedule is over (then it is
    /// disabled).
    func delay(afterFailures failures: Int, outcome: DeliveryOutcome) -> Duration?
    /// The longest it may fail before it is disabled; nil when its schedule decides (``delay(afterFailures:outcome:)``).
    var failureLimit: Duration? { get }
    /// Called when nothing waits, at most every ``idleInterval``: a printer asks its status.
    func idle() async
    var idleInterval: Duration { get }
}

/// How one send ended.
enum DeliveryOutcome: Sendable, Equatable {
    /// The receiver has it.
    case delivered
    /// It did not; try again. `retryAfter` is the receiver's own wish (HTTP `Retry-After`).
    case failed(String, retryAfter: Duration? = nil)
    /// It may or may not have: the next attempt is marked as sent again.
    case unknown(String)
    /// The receiver says never again (a webhook's 410): disabled at once.
    case gone(String)

    var error: String? {
        switch self {
        case .delivered: nil
        case .failed(let why, _), .unknown(let why), .gone(let why): why
        }
    }
}
