/// A closure SQLite calls back through a context pointer.
final class WALHook {
    let body: @Sendable (Int) -> Bool
    init(_ body: @escaping @Sendable (Int) -> Bool) { self.body = body }
}
