/// How long a webhook waits after each failure in a row: Standard Webhooks' and Svix's schedule, 5 s to 24 h, 75 h 35 min
/// in all, each wait up to a quarter longer so that many shops do not retry in step (longer only: the schedule must
/// last at least three days). Past the ninth, each wait is the last's. The budget is time, not a count: a webhook is
/// disabled once it has failed for ``total`` (its ``WebhookDestination/failureLimit``), however many attempts that
/// took, so that a receiver answering `Retry-After: 0` cannot spend three days' budget in a second. `scale` shrinks
/// it for tests (`outbox.retryScale`).
struct RetrySchedule: Sendable {
    static let waits: [Duration] = [
        .seconds(5), .seconds(5 * 60), .seconds(30 * 60), .seconds(2 * 3600), .seconds(5 * 3600),
        .seconds(10 * 3600), .seconds(14 * 3600), .seconds(20 * 3600), .seconds(24 * 3600),
    ]

    var scale: Double

    /// The wait after `failures` failures in a row (1: the first). A receiver's `Retry-After` is honoured instead,
    /// but never shorter than the first wait (a `0` would be a retry at once, again and again) nor longer than a day.
    func wait(afterFailures failures: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(max(retryAfter, Self.waits[0] * scale), .seconds(24 * 3600)) }
        let base = Self.waits[min(max(failures, 1), Self.waits.count) - 1] * scale
        return base * Double.random(in: 1.0...1.25)
    }

    /// The whole schedule without jitter: how long a webhook may fail before it is disabled.
    var total: Duration { Self.waits.reduce(.zero, +) * scale }
}
