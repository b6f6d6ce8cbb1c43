import Synchronization

/// The registrations of a ``MulticastDelegate`` at one moment, as dispatch reads them: immutable, with a version
/// that no other snapshot of any multicast delegate shares.
///
/// It owns its registrations (retained once, when it is made), and lays them out as unretained references, so a
/// dispatch walks them without touching a reference count.
@usableFromInline
final class MulticastSnapshot: Sendable {
    /// Versions come from one counter for all multicast delegates: equal versions mean the same snapshot.
    static let versions = Atomic<UInt64>(0)

    /// A version no snapshot has had yet.
    static func nextVersion() -> UInt64 { versions.add(1, ordering: .relaxed).newValue }

    @usableFromInline let version: UInt64
    @usableFromInline let count: Int
    // nonisolated(unsafe): written only in init, before the snapshot is shared; read-only afterwards.
    @usableFromInline nonisolated(unsafe) let entries: UnsafeMutablePointer<Unmanaged<MulticastRegistration>>

    init(version: UInt64, registrations: [MulticastRegistration]) {
        self.version = version
        count = registrations.count
        entries = .allocate(capacity: max(count, 1))
        for (index, registration) in registrations.enumerated() {
            (entries + index).initialize(to: .passRetained(registration))
        }
    }

    /// Whether the snapshot holds exactly `registrations`, in that order.
    func holds(_ registrations: [MulticastRegistration]) -> Bool {
        registrations.count == count
            && registrations.indices.allSatisfy { entries[$0].takeUnretainedValue() === registrations[$0] }
    }

    deinit {
        for index in 0..<count { entries[index].release() }
        entries.deallocate()
    }
}
