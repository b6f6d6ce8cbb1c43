import Foundation

/// The threads a live daemon's tasks run on (`LiveDaemon`, and the order API served in process by `APIFixture.live`):
/// two of its own (as pizzad's process has a thread a core on two cores), which no test and no other live daemon
/// blocks. Swift's cooperative pool is held by the tests at a whole `swift test`'s start, and the tests' blocking
/// executor by tests waiting on processes and sockets (its threads are added as they block, but not at once): a board
/// event waited there past the board's one second. Threads of its own, not a set shared by every live daemon, so that
/// one daemon's blocking work (a long scan, a wedged writer) cannot hold another's tasks; that this was what delayed a
/// full disk's health check under load (a suspicion when this was written) was not borne out: that test still lagged,
/// and runs its daemon as a process again. The order API in process ran on the cooperative pool until two of its tests,
/// in one CI run, had no answer within 10 s to a GET while other suites blocked the pool's two threads.
public final class DaemonThreads: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var next = 0
    private var finished = false
    private var running: Int

    /// Starts `count` threads named `name-0`, `name-1`, …, which run the jobs given in the order given.
    public init(name: String, count: Int = 2) {
        running = count
        for index in 0..<count {
            let thread = Thread { [self] in self.work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Runs `job` on one of the threads (on a thread of its own once they have ended).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        defer { condition.unlock() }
        guard running > 0 else {
            // After the daemon stopped and its threads ended: a late job (a cleanup's) still runs, on a thread of
            // its own.
            Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }.start()
            return
        }
        jobs.append(job)
        condition.signal()
    }

    /// Lets the threads end once every job given so far has run.
    public func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == jobs.count, !finished { condition.wait() }
            if next == jobs.count {
                running -= 1
                condition.unlock()
                return
            }
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
