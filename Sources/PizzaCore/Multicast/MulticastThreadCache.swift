// Public: `current`, on every dispatch's path, is inlinable and reads the thread's key with pthread_getspecific.
#if canImport(Glibc)
    public import Glibc
#elseif canImport(Darwin)
    public import Darwin
#endif

/// The snapshot a thread dispatched from last, so that a dispatch whose multicast delegate did not change since
/// takes no lock and touches no shared reference count.
///
/// One per thread, reached through a pthread key and freed when the thread ends. Only its own thread uses it.
/// It is a struct behind a pointer rather than a class so that its fields, read and written on every dispatch,
/// are plain memory accesses without the runtime's exclusivity bookkeeping for class properties.
/// A dispatch may run another dispatch from inside a delegate (on the same thread); a snapshot replaced then is
/// kept in `retired` until the outermost dispatch on the thread returns, so no loop loses the snapshot it walks.
@usableFromInline
struct MulticastThreadCache {
    /// The cached snapshot, retained once (manually, so reading it costs no reference count).
    @usableFromInline var snapshot: Unmanaged<MulticastSnapshot>?
    /// The cached snapshot's version; 0 when there is none (versions start at 1).
    @usableFromInline var version: UInt64 = 0
    /// How many dispatches are running on this thread (more than one when a delegate dispatches).
    @usableFromInline var depth = 0
    /// Snapshots replaced while a dispatch walked them; released when `depth` returns to 0.
    @usableFromInline var retired: [Unmanaged<MulticastSnapshot>] = []

    @usableFromInline
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            guard let cache = pointer?.assumingMemoryBound(to: MulticastThreadCache.self) else { return }
            cache.pointee.snapshot?.release()
            cache.pointee.releaseRetired()
            cache.deinitialize(count: 1)
            cache.deallocate()
        }
        precondition(result == 0, "pthread_key_create failed: \(result)")
        return key
    }()

    /// This thread's cache (the thread's key owns it).
    @inlinable
    static var current: UnsafeMutablePointer<MulticastThreadCache> {
        if let pointer = pthread_getspecific(key) { return pointer.assumingMemoryBound(to: MulticastThreadCache.self) }
        return makeCurrent()
    }

    @usableFromInline
    static func makeCurrent() -> UnsafeMutablePointer<MulticastThreadCache> {
        let cache = UnsafeMutablePointer<MulticastThreadCache>.allocate(capacity: 1)
        cache.initialize(to: MulticastThreadCache())
        pthread_setspecific(key, cache)
        return cache
    }

    /// Caches `fresh` (already retained for the cache) in place of the current snapshot.
    @usableFromInline
    mutating func replace(with fresh: Unmanaged<MulticastSnapshot>, version: UInt64) {
        if let old = snapshot {
            if depth > 0 { retired.append(old) } else { old.release() }
        }
        snapshot = fresh
        self.version = version
    }

    /// Releases the snapshots replaced during a dispatch; called when the outermost one returns.
    @usableFromInline
    mutating func releaseRetired() {
        retired.forEach { $0.release() }
        retired.removeAll()
    }
}
