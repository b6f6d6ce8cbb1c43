#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a lock: the only way to reach it is ``withLock(_:)``.
///
/// Why not `Synchronization.Mutex`: on Linux its futex-based lock is invisible to ThreadSanitizer, so every
/// access made under it is reported as a race, and `swift test --sanitize=thread` could not tell a real race from
/// a locked access. This lock is a `pthread_mutex_t`, which ThreadSanitizer understands; the cost is one heap
/// allocation per lock, made once.
///
/// `@unchecked Sendable` is sound because `stored` is only read or written inside `withLock`, which holds the
/// mutex for the whole access; nothing escapes the closure but its result.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Not checked for overlapping access at run time: the mutex already makes every access exclusive (a
    /// `withLock` inside another on the same lock deadlocks before it could overlap), and the check cost some 60
    /// instructions a `withLock` (PERFORMANCE.md, "Instructions per order").
    @exclusivity(unchecked) private var stored: Value

    /// A lock holding `value`.
    public init(_ value: Value) {
        self.stored = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock. Do not call out to unknown code from `body`.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body(&valueStorage)
    }

    /// A copy of the value, read under the lock.
    public var value: Value { withLock { $0 } }

    @usableFromInline
    var valueStorage: Value {
        _read { yield stored }
        _modify { yield &stored }
    }

    @usableFromInline
    func lock() { pthread_mutex_lock(mutex) }

    @usableFromInline
    func unlock() { pthread_mutex_unlock(mutex) }
}
