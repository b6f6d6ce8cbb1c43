// DaemonHarness is a plain target, so `swift build` (say `-c release`, for pizzabench) builds it too, where the
// Testing module is not offered: what needs it is compiled only where it is (a test build).
#if canImport(Testing)
    import Dispatch
    import PizzaTesting
    public import Testing

    /// Runs a suite's tests on threads of their own instead of Swift's cooperative pool.
    ///
    /// Swift Testing runs every test as a task on the cooperative pool, which has one thread per core: two on the
    /// machines this runs on. Most tests here block their thread while a real pizzad works (they wait for a process, a
    /// socket, a deadline), so with every test on the pool, two ran at a time and the machine stayed half idle. On
    /// ``BlockingTestExecutor`` a test that blocks holds a thread of a dispatch queue that makes more as they block, and
    /// Swift Testing's own limit (twice the cores) decides how many run at once. The heavy loads still take the machine
    /// alone (``withMachine(heavy:_:)``).
    public struct OffThePool: SuiteTrait, TestTrait, TestScoping {
        public var isRecursive: Bool { true }

        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
        }
    }

    extension Trait where Self == OffThePool {
        /// The suite's tests run off the cooperative pool (``OffThePool``).
        public static var offThePool: Self { OffThePool() }
    }
#endif
