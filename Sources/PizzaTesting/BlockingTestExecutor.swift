import Dispatch

/// A task executor on a concurrent dispatch queue: a job that blocks holds one of its threads, not the cooperative
/// pool's. The daemon's suites run on it (`.offThePool`), and a client test whose timing is the point.
public final class BlockingTestExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor every such test shares.
    public static let shared = BlockingTestExecutor()
    private let queue = DispatchQueue(label: "pizzad-tests.blocking", attributes: .concurrent)

    /// Runs `job` on a thread of the concurrent queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
