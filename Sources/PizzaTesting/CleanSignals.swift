public import Foundation

extension Process {
    /// Starts the process with no signal blocked and every signal at its default action (except those the child
    /// sets itself), whatever thread calls this.
    ///
    /// A child inherits its parent thread's signal mask, and Foundation's `Process` does not reset it: started from
    /// a Dispatch worker or a Swift concurrency thread, which block most signals, the child ran with SIGTERM and
    /// SIGALRM blocked (pgbench's `-T` never ended; a pizzad could not be stopped with SIGTERM). So the calling
    /// thread's mask is emptied for the spawn, then put back.
    public func runWithCleanSignals() throws {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }
}
