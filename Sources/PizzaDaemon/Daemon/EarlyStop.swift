import PizzaCore
import ServiceLifecycle
import UnixSignals

/// SIGTERM and SIGINT from before the database opens until the service group runs (and handles them itself): a stop
/// asked for while pizzad starts (a migration, the sockets being bound) is remembered and carried out, gracefully,
/// once the services run, instead of the signal's default action killing the process half-way through its start.
final class EarlyStop: Sendable {
    private let state: Locked<State>
    private let listening: Task<Void, Never>

    private struct State: Sendable {
        var requested = false
        var group: ServiceGroup?
    }

    /// Traps the signals from now on (they no longer end the process by themselves).
    init() async {
        let state = Locked(State())
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        self.state = state
        listening = Task {
            for await _ in signals {
                let group = state.withLock { state -> ServiceGroup? in
                    state.requested = true
                    return state.group
                }
                await group?.triggerGracefulShutdown()
            }
        }
    }

    /// Whether a stop was asked for.
    var requested: Bool { state.withLock { $0.requested } }

    /// Hands a stop asked for so far, and any later one, to `group` (which may not be running yet).
    func hand(to group: ServiceGroup) async {
        let requested = state.withLock { state in
            state.group = group
            return state.requested
        }
        if requested { await group.triggerGracefulShutdown() }
    }

    deinit { listening.cancel() }
}
