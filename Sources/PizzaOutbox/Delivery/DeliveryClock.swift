import PizzaCore

/// The deliverer's time: the wall clock it records (failing since, disabled at, delivered at) and the waits between
/// attempts. ``SystemDeliveryClock`` in the daemon; a test's own moves only when the deliverer waits, so that a
/// schedule of days runs in milliseconds and a time budget is crossed exactly.
protocol DeliveryClock: Sendable {
    /// Now, on the wall clock.
    func now() -> Timestamp
    /// Waits `duration`, or until `bell` rings and `stop()` says so.
    func wait(_ duration: Duration, orUntil bell: Doorbell, stop: @Sendable () -> Bool) async
}

/// The real clock: the system's time, and waits that take as long as they say.
struct SystemDeliveryClock: DeliveryClock {
    func now() -> Timestamp { .now() }

    func wait(_ duration: Duration, orUntil bell: Doorbell, stop: @Sendable () -> Bool) async {
        let due = ContinuousClock.now + duration
        while ContinuousClock.now < due, !Task.isCancelled {
            await bell.wait(timeout: due - ContinuousClock.now)
            if stop() { return }
        }
    }
}
