/// How long a webhook waits after each failure in a row: Standard Webhooks' and Svix's schedule, 5 s to 24 h, 75 h 35 min
/// in all, each wait up to a quarter longer so that many shops do not retry in step (longer only: the schedule must
/// last at least three days). After the last, the webhook is disabled. `scale` shrinks it for tests
/// (`outbox.retryScale`).
struct RetrySchedule: Sendable {
    static let waits: [Duration] = [
        .seconds(5), .seconds(5 * 60), .seconds(30 * 60), .seconds(2 * 3600), .seconds(5 * 3600),
        .seconds(10 * 3600), .seconds(14 * 3600), .seconds(20 * 3600), .seconds(24 * 3600),
    ]

    var scale: Double

    /// The wait after `failures` failures in a row (1: the first), nil once the schedule is over. A receiver's
    /// `Retry-After` is honoured instead, up to a day.
    func wait(afterFailures failures: Int, retryAfter: Duration?) -> Duration? {
        guard failures >= 1, failures <= Self.waits.count else { return nil }
        if let retryAfter { return min(retryAfter, .seconds(24 * 3600)) }
        let base = Self.waits[failures - 1] * scale
        return base * Double.random(in: 1.0...1.25)
    }

    /// The whole schedule without jitter.
    var total: Duration { Self.waits.reduce(.zero, +) * scale }
}
