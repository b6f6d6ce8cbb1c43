import Synchronization

/// One delegate's place in a ``MulticastDelegate``; `cancel()` ends it.
///
/// Holding the registration does not keep the delegate alive. Cancelling twice, or after the delegate died or
/// was removed, does nothing.
public final class MulticastRegistration: Sendable, Hashable {
    /// A number unique within the multicast delegate that made it, in registration order.
    public let id: UInt64
    // `weak let` never changes after init, and the runtime zeroes weak references atomically, so reading it from
    // any thread is safe. AnyObject is not Sendable, hence `nonisolated(unsafe)`: the multicast delegate only
    // compares its identity and casts it back to the delegate type it was registered as.
    @usableFromInline nonisolated(unsafe) weak let object: AnyObject?
    private let active = Atomic<Bool>(true)
    private let onCancel: @Sendable (UInt64) -> Void

    init(id: UInt64, object: AnyObject, onCancel: @escaping @Sendable (UInt64) -> Void) {
        self.id = id
        self.object = object
        self.onCancel = onCancel
    }

    /// Whether the registration was not cancelled or removed (the delegate may still have died).
    @usableFromInline var isEnabled: Bool { active.load(ordering: .acquiring) }

    /// Whether the registration is still in force (not cancelled, removed, or ended by the delegate's death).
    public var isActive: Bool { isEnabled && object != nil }

    func deactivate() { active.store(false, ordering: .releasing) }

    /// Ends the registration: the delegate is not called again, including by a dispatch under way.
    public func cancel() {
        guard active.exchange(false, ordering: .acquiringAndReleasing) else { return }
        onCancel(id)
    }

    public static func == (lhs: MulticastRegistration, rhs: MulticastRegistration) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
