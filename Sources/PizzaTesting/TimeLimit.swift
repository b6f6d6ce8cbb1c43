/// A moment some seconds ahead on the monotonic clock, for the waits of tests and their harnesses.
///
/// Not the wall clock (`Date`): a machine's wall clock can be stepped while a test waits (NTP, a virtual machine
/// brought back in time), and a wait measured on it then ends at once or lasts far too long. CI saw it: a wait for
/// replication, 60 s by the wall clock, gave up within a second of monotonic time.
public struct TimeLimit: Sendable {
    public let end: ContinuousClock.Instant

    public init(seconds: Double) { end = .now + .seconds(seconds) }

    /// Whether there is time left.
    public var remains: Bool { ContinuousClock.now < end }

    /// The seconds left; 0 once the time is up.
    public var secondsLeft: Double { max(0, ContinuousClock.now.duration(to: end).inSeconds) }
}

/// Measures time on the monotonic clock, for the "answered within" checks of tests.
public struct Stopwatch: Sendable {
    private let started = ContinuousClock.now

    public init() {}

    /// The seconds since the stopwatch was made.
    public var seconds: Double { started.duration(to: .now).inSeconds }
}

extension Duration {
    fileprivate var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
