import Foundation
import PizzaTesting

/// A server's threads from `/proc/PID/task`, to tell its event loops' CPU (and how often they were preempted) from the
/// rest's (the writer's, above all). The loops are the threads SwiftNIO names `NIO-…` and
/// socketwork.c names `loop-…`, so pizzad and the bound split the same way.
struct ThreadCPU {
    /// One thread's figures.
    struct Thread {
        var loop: Bool
        var seconds: Double
        /// Of `seconds`, in user mode (the rest is the kernel's on the thread's behalf: its system calls).
        var userSeconds: Double
        var preemptions: Int
    }

    /// By thread id.
    var threads: [Int: Thread]

    /// The threads of `pid` now (none when it is gone).
    init(of pid: Int32) {
        var threads: [Int: Thread] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let id = Int(task),
                let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
            else { continue }
            let cpu = ProcessCPU.split(thread: id, of: pid)
            threads[id] = Thread(
                loop: name.hasPrefix("NIO-") || name.hasPrefix("loop-"), seconds: cpu.user + cpu.system,
                userSeconds: cpu.user, preemptions: ProcessCPU.preemptions(thread: id, of: pid))
        }
        self.threads = threads
    }

    /// What the loops used from `earlier` to this, in seconds (of which `user` in user mode), and how often they were
    /// preempted (the rest is the process's CPU less this). A thread that started meanwhile counts from zero; one that
    /// ended is left out.
    func loops(since earlier: ThreadCPU) -> (seconds: Double, user: Double, preemptions: Int) {
        var seconds = 0.0
        var user = 0.0
        var preemptions = 0
        for (id, now) in threads where now.loop {
            let before = earlier.threads[id] ?? Thread(loop: true, seconds: 0, userSeconds: 0, preemptions: 0)
            seconds += now.seconds - before.seconds
            user += now.userSeconds - before.userSeconds
            preemptions += now.preemptions - before.preemptions
        }
        return (seconds, user, preemptions)
    }
}
