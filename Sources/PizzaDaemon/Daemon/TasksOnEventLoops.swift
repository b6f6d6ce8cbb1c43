import CSystemShims
import NIOCore
import NIOPosix
import PizzaCore

/// Swift's tasks on NIO's event loops: pizzad makes the loops Swift concurrency's global executor, so that a request's
/// task and its socket share a thread (docs/PERFORMANCE.md, "The order API").
///
/// SwiftNIO's own way (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`) finds
/// the runtime's hook with `dlsym`, which finds nothing in pizzad's release build: it links the runtime in and
/// exports nothing but `main` (Sources/pizzad/exports.map), and the runtime's archives are linked with
/// `--exclude-libs ALL`, so the hook cannot be exported either. From 405ee1d on, every task of a release build ran
/// on Dispatch's pool beside the loops, and the discarded `false` told nobody. Here the hook is set through a name
/// the linker resolves (`pizzad_install_enqueue_global_hook`), to what NIO's sets it to: the job goes to the loop the
/// enqueueing thread is on, or the group's next one.
public enum TasksOnEventLoops {
    private static let outcome = Locked<Bool?>(nil)

    private typealias Hook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void

    /// Installs NIO's shared loops as Swift concurrency's global executor: from the main thread, once, before any
    /// task but the main one runs. True when it took (false when something had installed a hook before).
    @discardableResult
    public static func install() -> Bool {
        let hook: Hook = { job, _ in MultiThreadedEventLoopGroup.singleton.any().enqueue(ExecutorJob(job)) }
        let took = pizzad_install_enqueue_global_hook(unsafeBitCast(hook, to: UnsafeMutableRawPointer.self)) == 1
        outcome.withLock { $0 = took }
        return took
    }

    /// Where this process's tasks run, for the ready line: `event loops`, `a pool beside the loops` (install did
    /// not take) or `Swift's executor` (not asked: a daemon in a test's process).
    static var described: String {
        switch outcome.value {
        case true: "event loops"
        case false: "a pool beside the loops"
        case nil: "Swift's executor"
        }
    }

    /// The warning a start logs when ``install()`` was called and did not take; nil when it took or was not called
    /// (tests run the daemon in their own process, on Swift's own executor).
    static var warning: String? {
        guard outcome.value == false else { return nil }
        return "Swift tasks run on a thread pool beside the event loops, not on them: the runtime's global executor "
            + "hook was taken; every request hops between threads"
    }
}
