import Synchronization

/// A text computed by whoever needs it first and then shared, e.g. an order's wire text that the audit entry
/// and every watcher's event of one change use (encoded once, not once per subscriber).
///
/// Not generic: a generic class's `deinit` looked up its specialisation's metadata at run time for each change.
///
/// A cache, not part of the value it travels with: two instances always compare equal.
///
/// Lock-free: the value is published with one atomic compare-and-exchange of a pointer to it, and read back with
/// one acquiring load. Two threads asking for it at the same moment may both compute it; the first to publish wins,
/// and the other's copy is dropped, so `make` must give the same value every time (it has no other effect). A
/// lock here cost a `Locked` and its mutex per change, allocated, initialised and destroyed on the writer's thread.
/// Atomics are visible to ThreadSanitizer, unlike `Synchronization.Mutex`.
///
/// `@unchecked Sendable` is sound because the pointer is only ever published once, to a fully initialised `String`
/// that is never written again, and read after an acquiring load; it is freed in `deinit`.
public final class ComputedText: @unchecked Sendable, Equatable {
    private let published = Atomic<UnsafeMutablePointer<String>?>(nil)

    public init() {}

    deinit {
        guard let value = published.load(ordering: .acquiring) else { return }
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// The value, computing it with `make` the first time.
    public func get(_ make: () -> String) -> String {
        if let value = published.load(ordering: .acquiring) { return value.pointee }
        let made = UnsafeMutablePointer<String>.allocate(capacity: 1)
        made.initialize(to: make())
        let (exchanged, winner) = published.compareExchange(
            expected: nil, desired: made, successOrdering: .releasing, failureOrdering: .acquiring)
        if exchanged { return made.pointee }
        made.deinitialize(count: 1)
        made.deallocate()
        // Another thread published first; its value is the one everybody sees.
        return winner!.pointee
    }

    /// Always equal: a cache is not part of the value it travels with.
    /// The text, if it was made already; nil without making it.
    public var known: String? { published.load(ordering: .acquiring)?.pointee }

    public static func == (lhs: ComputedText, rhs: ComputedText) -> Bool { true }
}
