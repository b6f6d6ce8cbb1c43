import NIOCore

/// Runs a task's jobs on one NIO event loop: a task executor preference (SE-0417) for the changes a connection
/// sends, so the task, every nonisolated async function it calls and the resumption after its group commit all
/// run on the connection's own event loop. Without it a change's task went to the global executor (in pizzad the
/// NIO loops, any of them), was resumed there after the commit, and then hopped to the connection's loop to
/// answer: up to two thread wake-ups more per change, on a machine whose cores the writer and the clients share.
///
/// Only for work that waits rather than computes (a change waits for its commit on the writer's queue); the long
/// scans (`audit.verify`, `db.check`, `db.backup`) keep running on the global executor as before.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
