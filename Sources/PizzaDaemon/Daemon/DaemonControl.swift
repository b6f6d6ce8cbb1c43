import NIOCore
import NIOPosix
import PizzaCore
import ServiceLifecycle
import UnixSignals

/// What stops and reloads a running daemon: the process's signals (pizzad: SIGTERM and SIGINT stop it, SIGHUP
/// reloads it), or only this object's ``stop()`` and ``reload()`` (a daemon run in a test's process, whose signals
/// are the test runner's).
///
/// A stop asked for while pizzad starts (a migration, the sockets being bound), from the moment
/// ``trapSignals()`` is called, is remembered and carried out, gracefully, once the services run, instead of the
/// signal's default action killing the process half-way through its start.
final class DaemonControl: Sendable {
    /// Whether the process's signals drive the daemon.
    let usesSignals: Bool
    /// Where the tasks the daemon starts from its event loops run (a long scan, a watcher's replay); nil: Swift's
    /// global executor, which pizzad makes its event loops. A daemon in a test's process runs them on threads of the
    /// test's, away from the cooperative pool its tests hold.
    let taskExecutor: (any TaskExecutor)?
    /// The event loops its sockets are served on: NIO's shared ones in pizzad, a group of its own for each daemon in
    /// a test's process (several there would otherwise share two loops).
    let eventLoopGroup: MultiThreadedEventLoopGroup
    /// The loop its connections to the centre run on; nil: the process's one shipping loop (pizzad).
    let shippingLoop: (any EventLoop)?
    private let state = Locked(State())

    private struct State: Sendable {
        var requested = false
        var group: ServiceGroup?
        var reload: ReloadService?
        var listening: Task<Void, Never>?
    }

    /// A control driven by the process's signals (`usesSignals`), or by its methods alone; the daemon's loose
    /// tasks on `taskExecutor` if given.
    init(
        usesSignals: Bool, taskExecutor: (any TaskExecutor)? = nil,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton, shippingLoop: (any EventLoop)? = nil
    ) {
        self.usesSignals = usesSignals
        self.taskExecutor = taskExecutor
        self.eventLoopGroup = eventLoopGroup
        self.shippingLoop = shippingLoop
    }

    /// Traps SIGTERM and SIGINT from now on (they no longer end the process by themselves), when signals drive it.
    func trapSignals() async {
        guard usesSignals else { return }
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let listening = Task { [self] in
            for await _ in signals { await stop() }
        }
        state.withLock { $0.listening = listening }
    }

    /// Stops the daemon gracefully: at once if its services run, else as soon as they do.
    func stop() async {
        let group = state.withLock { state -> ServiceGroup? in
            state.requested = true
            return state.group
        }
        await group?.triggerGracefulShutdown()
    }

    /// Re-reads the configuration as `SIGHUP` does; nothing before the services run.
    func reload() async {
        await state.withLock { $0.reload }?.reload()
    }

    /// Whether a stop was asked for.
    var requested: Bool { state.withLock { $0.requested } }

    /// Hands a stop asked for so far, and any later one, to `group` (which may not be running yet), and reloads to
    /// `reload`.
    func hand(to group: ServiceGroup, reload: ReloadService) async {
        let requested = state.withLock { state in
            state.group = group
            state.reload = reload
            return state.requested
        }
        if requested { await group.triggerGracefulShutdown() }
    }

    deinit { state.withLock { $0.listening?.cancel() } }
}
