import Foundation

/// The threads the live daemons' tasks run on: a few of their own, which no test blocks. Swift's cooperative pool
/// is held by the tests at a whole `swift test`'s start, and the tests' blocking executor by tests waiting on
/// processes and sockets (its threads are added as they block, but not at once): a board event waited there past
/// the board's one second, where a daemon's own process would have had the kernel's share.
final class DaemonThreads: TaskExecutor, @unchecked Sendable {
    /// The threads every live daemon in this process shares (pizzad runs its tasks on its two event loops).
    static let shared = DaemonThreads(count: 4)

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var next = 0

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "live-pizzad-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next > 1024, next * 2 > jobs.count {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
