public import Synchronization

/// Announces calls to many delegates, holding each one weakly.
///
/// - Delegates are held weakly: dropping the last strong reference ends a subscription, no `remove` needed.
///   A dead delegate is never called and does not count.
/// - Registration is by identity of a live object: adding the same object twice registers it once, while a new
///   object that happens to reuse a dead one's address is a new registration.
/// - Only class instances can be delegates. A value-type conformer is a programmer error and stops the process
///   with a message, rather than being wrapped in a box that dies at once and silently never gets called.
/// - Calls go in registration order. A dispatch works on the registrations that existed when it began: a
///   delegate added during a dispatch is first called by the next one; a delegate removed during a dispatch is
///   not called after its removal.
/// - No lock is held while a delegate runs, so a delegate may add, remove, or dispatch again.
///
/// It is `Sendable`: add, remove and dispatch may happen on any thread. A delegate runs on the dispatching thread.
public final class MulticastDelegate<Delegate>: Sendable {
    @usableFromInline
    struct State {
        var registrations: [MulticastRegistration] = []
        /// What dispatch walks: the registrations as of the last change.
        @usableFromInline var snapshot = MulticastSnapshot(version: MulticastSnapshot.nextVersion(), registrations: [])
        var nextID: UInt64 = 0
    }

    @usableFromInline
    let state = Locked(State())
    /// The current snapshot's version, published (after the snapshot) so that a dispatch can tell, without the
    /// lock, whether the snapshot its thread cached is still the current one.
    @usableFromInline
    let version = Atomic<UInt64>(0)

    /// An empty multicast delegate.
    public init() {
        version.store(state.withLock { $0.snapshot.version }, ordering: .releasing)
    }

    /// Runs `body` on the state under the lock; if the registrations changed, makes and publishes a new snapshot
    /// (a change that leaves them as they were keeps every thread's cached snapshot valid).
    private func change<T>(_ body: (inout State) -> T) -> T {
        state.withLock { state in
            let result = body(&state)
            if !state.snapshot.holds(state.registrations) {
                state.snapshot = MulticastSnapshot(
                    version: MulticastSnapshot.nextVersion(), registrations: state.registrations)
                version.store(state.snapshot.version, ordering: .releasing)
            }
            return result
        }
    }

    /// Caches the current snapshot in this thread's cache; the slow path of ``invoke(_:)``.
    @usableFromInline
    func refresh(_ cache: UnsafeMutablePointer<MulticastThreadCache>) {
        let snapshot = state.withLock { $0.snapshot }
        cache.pointee.replace(with: .passRetained(snapshot), version: snapshot.version)
    }

    /// Adds `delegate` (held weakly) and returns its registration; adding a live delegate again returns the
    /// registration it already has.
    @discardableResult
    public func add(_ delegate: Delegate) -> MulticastRegistration {
        guard type(of: delegate as Any) is AnyClass else {
            preconditionFailure(
                "MulticastDelegate<\(Delegate.self)>: \(type(of: delegate as Any)) is a value type; "
                    + "only class instances can be held weakly as delegates")
        }
        let object = delegate as AnyObject
        return change { state in
            state.registrations.removeAll { !$0.isActive }
            if let existing = state.registrations.first(where: { $0.object === object }) {
                return existing
            }
            state.nextID &+= 1
            let registration = MulticastRegistration(id: state.nextID, delegate: delegate, object: object) {
                [weak self] id in
                self?.removeRegistration(id: id)
            }
            state.registrations.append(registration)
            return registration
        }
    }

    /// Removes `delegate`; removing one that is not registered does nothing.
    public func remove(_ delegate: Delegate) {
        let object = delegate as AnyObject
        change { state in
            state.registrations.removeAll { registration in
                guard registration.object === object else { return !registration.isActive }
                registration.deactivate()
                return true
            }
        }
    }

    private func removeRegistration(id: UInt64) {
        change { state in state.registrations.removeAll { $0.id == id || !$0.isActive } }
    }

    /// Calls `body` with each live delegate, in registration order. No lock is held while `body` runs.
    ///
    /// Inlinable so that it is specialized for the caller's delegate type. When nothing changed since this
    /// thread's last dispatch, it takes no lock and touches no shared reference count but the delegate's own:
    /// one weak load (an atomic increment) and its release per delegate. The snapshot owns the registrations,
    /// which are visited unretained, and each delegate is passed to `body` borrowed from its stored bits.
    @inlinable
    public func invoke(_ body: (Delegate) throws -> Void) rethrows {
        let cache = MulticastThreadCache.current
        if cache.pointee.version != version.load(ordering: .acquiring) { refresh(cache) }
        // The cache holds the snapshot until the outermost dispatch on this thread returns.
        let snapshot = cache.pointee.snapshot.unsafelyUnwrapped
        cache.pointee.depth += 1
        defer {
            cache.pointee.depth -= 1
            if cache.pointee.depth == 0, !cache.pointee.retired.isEmpty { cache.pointee.releaseRetired() }
        }
        try snapshot._withUnsafeGuaranteedRef { snapshot in
            for index in 0..<snapshot.count {
                try snapshot.entries[index]._withUnsafeGuaranteedRef { try $0.call(body) }
            }
        }
    }

    /// The live delegates, in registration order.
    public var delegates: [Delegate] {
        var result: [Delegate] = []
        invoke { result.append($0) }
        return result
    }

    /// How many live delegates there are.
    public var count: Int {
        state.withLock { state in state.registrations.reduce(0) { $0 + ($1.isActive ? 1 : 0) } }
    }

    /// Whether there is no live delegate.
    public var isEmpty: Bool { count == 0 }

    /// Whether `delegate` is currently registered.
    public func contains(_ delegate: Delegate) -> Bool {
        let object = delegate as AnyObject
        return state.withLock { state in state.registrations.contains { $0.isActive && $0.object === object } }
    }

    /// Adds `delegate`; see ``add(_:)``.
    public static func += (multicast: MulticastDelegate, delegate: Delegate) {
        multicast.add(delegate)
    }

    /// Removes `delegate`; see ``remove(_:)``.
    public static func -= (multicast: MulticastDelegate, delegate: Delegate) {
        multicast.remove(delegate)
    }
}
