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
    // comparison and the cast in `invoke` ever use it.
    @usableFromInline nonisolated(unsafe) weak let object: AnyObject?
    private let active = Atomic<Bool>(true)
    private let onCancel: @Sendable (UInt64) -> Void
    /// The delegate as its existential value, copied bit for bit *without* retaining the object inside, so the
    /// registration stays weak. ``call(_:)`` only reads it (borrowed, in place) while it holds a strong reference
    /// obtained through `object`, so the object is alive whenever the bits are used. This saves the dynamic
    /// cast from `AnyObject` back to the delegate protocol on every call, the dominant cost of the seed versions.
    // nonisolated(unsafe): written once in init, then only read (the bits never change).
    @usableFromInline nonisolated(unsafe) let unretainedDelegate: UnsafeMutableRawPointer

    init<Delegate>(id: UInt64, delegate: Delegate, object: AnyObject, onCancel: @escaping @Sendable (UInt64) -> Void) {
        self.id = id
        self.object = object
        self.onCancel = onCancel
        unretainedDelegate = .allocate(
            byteCount: MemoryLayout<Delegate>.size, alignment: MemoryLayout<Delegate>.alignment)
        withUnsafeBytes(of: delegate) { bytes in
            unretainedDelegate.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        // Typed from now on, for `call`; still not retained (binding moves no value and runs no copy).
        unretainedDelegate.bindMemory(to: Delegate.self, capacity: 1)
    }

    deinit {
        // The bits were never retained, so they are not released either: only the memory goes.
        unretainedDelegate.deallocate()
    }

    /// Calls `body` with the delegate if the registration is enabled and the delegate alive.
    ///
    /// The weak load gives a strong reference that keeps the object alive for the call; the delegate's
    /// existential is then read in place from its unretained bits, borrowed, not copied (and so not retained).
    @inlinable
    func call<Delegate>(_ body: (Delegate) throws -> Void) rethrows {
        guard isEnabled, let object else { return }
        try withExtendedLifetime(object) {
            try body(unretainedDelegate.assumingMemoryBound(to: Delegate.self).pointee)
        }
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
