/// Wakes one waiting task: rung after every commit, waited on by the shipper between batches and by
/// each printer and webhook. A ring while
/// nobody waits is kept for the next wait, so a commit is never missed; many rings in between count as one.
public final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Set when a wait ended before its waiter registered, so the waiter does not wait at all.
        var waitOver = false
    }

    private let state = Locked(State())

    /// A doorbell nobody rang yet.
    public init() {}

    /// Wakes the waiter, or the next wait.
    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Forgets a ring nobody waited for: called before reading what the rings announce, so that the next wait is
    /// woken only by what came after that read (a ring for something already read woke the next wait at once).
    public func silence() { state.withLock { $0.rung = false } }

    /// Returns when rung (at once when rung since the last wait), after `timeout`, or when the task is cancelled.
    public func wait(timeout: Duration) async {
        state.withLock { $0.waitOver = false }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForRing() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.waitOver = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    private func waitForRing() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.rung || state.waitOver {
                    state.rung = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}
