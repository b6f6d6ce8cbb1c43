import Foundation
import NIOPosix

/// A thread of its own for the shipper's reading, checking and encoding, at a lower scheduling priority than the
/// kitchen's threads.
///
/// On the cooperative pool (as many threads as cores) a batch of 500 entries read, hashed and encoded would hold
/// one of those threads for milliseconds, and every request waiting behind it would be slower. Here it only takes
/// CPU the kitchen leaves: under full load the backlog waits a little longer, orders are not slowed; in a normal
/// shop, far from full load, the lag is unchanged.
final class BackgroundThread: Sendable {
    /// The thread's niceness: 10 gives it about a tenth of the weight of a kitchen thread when both want the CPU.
    static let niceness: Int32 = 10
    private let pool: NIOThreadPool

    init() {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        pool.submit { _ in
            // Linux keeps niceness per thread (who 0 is the calling one); this thread is the pool's for its whole life.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        }
    }

    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }

    deinit { pool.shutdownGracefully { _ in } }
}
