/// A value computed by whoever needs it first and then shared, e.g. an order's wire text that the audit entry
/// and every watcher's event of one change use (encoded once, not once per subscriber).
///
/// A cache, not part of the value it travels with: two instances always compare equal.
public final class ComputedOnce<Value: Sendable>: Sendable, Equatable {
    private let value = Locked<Value?>(nil)

    public init() {}

    /// The value, computing it with `make` the first time.
    public func get(_ make: () -> Value) -> Value {
        value.withLock { value in
            if let value { return value }
            let made = make()
            value = made
            return made
        }
    }

    public static func == (lhs: ComputedOnce, rhs: ComputedOnce) -> Bool { true }
}
