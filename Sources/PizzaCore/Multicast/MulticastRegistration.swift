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
    /// Whether the delegate's existential is a class-bound one of one protocol: two words, the object and the
    /// protocol's witness table (Swift's ABI for `any P` with `P: AnyObject`). Then ``call(_:)`` makes the
    /// existential from the strong reference the weak load gave and the kept witness table, instead of copying the
    /// kept bits, which would retain and release the object once more. An object with weak references keeps its
    /// counts in a side table, where each retain and release is a slow-path atomic, so this halves the counting per
    /// call. Checked at registration: the size, and the first word being the object.
    @usableFromInline let isClassExistential: Bool

    init<Delegate>(id: UInt64, delegate: Delegate, object: AnyObject, onCancel: @escaping @Sendable (UInt64) -> Void) {
        self.id = id
        self.object = object
        self.onCancel = onCancel
        let bits = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Delegate>.size, alignment: MemoryLayout<Delegate>.alignment)
        withUnsafeBytes(of: delegate) { bytes in
            bits.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        isClassExistential =
            MemoryLayout<Delegate>.size == 2 * MemoryLayout<UnsafeRawPointer>.size
            && bits.load(as: UnsafeRawPointer.self) == UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        unretainedDelegate = bits
        // Typed from now on, for `call`; still not retained (binding moves no value and runs no copy).
        unretainedDelegate.bindMemory(to: Delegate.self, capacity: 1)
    }

    deinit {
        // The bits were never retained, so they are not released either: only the memory goes.
        unretainedDelegate.deallocate()
    }

    /// Calls `body` with the delegate if the registration is enabled and the delegate alive.
    ///
    /// The weak load gives a strong reference that keeps the object alive for the call. For a class-bound
    /// existential, that reference and the kept witness table become the delegate handed to `body` (released once
    /// after it); otherwise the existential is copied from its unretained bits while the reference holds it alive.
    @inlinable
    func call<Delegate>(_ body: (Delegate) throws -> Void) rethrows {
        guard isEnabled, let object else { return }
        if isClassExistential {
            let witnesses = unretainedDelegate.load(
                fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UnsafeRawPointer.self)
            try body(unsafeBitCast((consume object, witnesses), to: Delegate.self))
        } else {
            try withExtendedLifetime(object) {
                try body(unretainedDelegate.assumingMemoryBound(to: Delegate.self).pointee)
            }
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
