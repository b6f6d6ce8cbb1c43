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
///
/// A dispatch takes the lock once, to copy the registration array (a reference count, not a copy of the
/// elements), and then per delegate loads its weak reference and calls the delegate through the existential kept
/// with the registration (see ``MulticastRegistration``), which saves a dynamic cast per call. Measured back to
/// back in pizzabench: with the cast instead (a safe `object as? Delegate`), pizzad's CPU per `order.create` rose
/// from 50-54 µs to 54-63 µs and the order rate fell by 7% (`swift_dynamicCast` was 4% of its samples: the
/// storage writers' `any OrderChangeWriter<WriteTransaction>` is a constrained existential, the runtime's slow
/// path), so the unsafe path stays (docs/PERFORMANCE.md, "The multicast's unsafe path").
public final class MulticastDelegate<Delegate>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var registrations: [MulticastRegistration] = []
        var nextID: UInt64 = 0

        /// Forgets the registrations whose delegate died or that were removed.
        mutating func prune() { registrations.removeAll { !$0.isActive } }
    }

    @usableFromInline
    let state = Locked(State())

    /// An empty multicast delegate.
    public init() {}

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
        return state.withLock { state in
            state.prune()
            if let existing = state.registrations.first(where: { $0.object === object }) {
                return existing
            }
            state.nextID &+= 1
            let registration = MulticastRegistration(id: state.nextID, delegate: delegate, object: object) {
                // A cancelled registration is inactive already; pruning drops it.
                [weak self] _ in self?.state.withLock { $0.prune() }
            }
            state.registrations.append(registration)
            return registration
        }
    }

    /// Removes `delegate`; removing one that is not registered does nothing.
    public func remove(_ delegate: Delegate) {
        let object = delegate as AnyObject
        state.withLock { state in
            for registration in state.registrations where registration.object === object {
                registration.deactivate()
            }
            state.prune()
        }
    }

    /// Calls `body` with each live delegate, in registration order. No lock is held while `body` runs.
    ///
    /// Inlinable so that it is specialized for the caller's delegate type.
    @inlinable
    public func invoke(_ body: (Delegate) throws -> Void) rethrows {
        let registrations = state.withLock { $0.registrations }
        for registration in registrations { try registration.call(body) }
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
