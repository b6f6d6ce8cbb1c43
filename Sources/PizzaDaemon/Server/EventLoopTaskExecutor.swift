import NIOCore

/// Runs a task's jobs on one NIO event loop: a task executor preference (SE-0417) for the changes a connection
/// sends, so the task, every nonisolated async function it calls and the resumption after its group commit all
/// run on the connection's own event loop. Without it each change went event loop → global pool → writer →
/// global pool → event loop: two thread wake-ups more per change on a machine whose cores the writer and the
/// clients already share.
///
/// Only for work that waits rather than computes (a change waits for its commit on the writer's queue); long
/// scans (`audit.verify`, `db.check`, `db.backup`) stay on the global pool so they never hold up a loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
