import Synchronization

/// One delegate's place in a ``MulticastDelegate``; `cancel()` ends it.
///
/// Holding the registration does not keep the delegate alive. Cancelling twice, or after the delegate died or
/// was removed, does nothing.
public final class MulticastRegistration: Sendable, Hashable {
    /// A number unique within the multicast delegate that made it, in registration order.
    public let id: UInt64
    // `weak let` never changes after init; the runtime zeroes weak references atomically, so reading it from
    // any thread is safe. AnyObject is not Sendable, hence the `nonisolated(unsafe)`: only identity
    // comparison and the cast in `call` ever use it.
    @usableFromInline nonisolated(unsafe) weak let object: AnyObject?
    private let active = Atomic<Bool>(true)
    private let onCancel: @Sendable (UInt64) -> Void
    init(id: UInt64, object: AnyObject, onCancel: @escaping @Sendable (UInt64) -> Void) {
        self.id = id
        self.object = object
        self.onCancel = onCancel
    }

    /// Calls `body` with the delegate if the registration is enabled and the delegate alive. The weak load gives a
    /// strong reference that keeps the object alive for the call; the cast back to the delegate's protocol is the
    /// runtime's (its conformance cache), about 20 ns.
    @inlinable
    func call<Delegate>(_ body: (Delegate) throws -> Void) rethrows {
        guard isEnabled, let delegate = object as? Delegate else { return }
        try body(delegate)
    }

    /// Whether the registration was not cancelled or removed (the delegate may still have died).
    @usableFromInline var isEnabled: Bool { active.load(ordering: .acquiring) }

    /// Whether the registration is still in force (not cancelled, removed, or ended by the delegate's death).
    public var isActive: Bool { active.load(ordering: .acquiring) && object != nil }

    func deactivate() { active.store(false, ordering: .releasing) }

    /// Ends the registration: the delegate is not called again, including by a dispatch under way.
    public func cancel() {
        guard active.exchange(false, ordering: .acquiringAndReleasing) else { return }
        onCancel(id)
    }

    public static func == (lhs: MulticastRegistration, rhs: MulticastRegistration) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
