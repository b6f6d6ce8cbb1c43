import NIOCore
import PizzaCore

/// Counts open connections and requests under way, so shutdown can wait for the requests to finish.
final class ConnectionTracker: Sendable {
    private let channels = Locked<[ObjectIdentifier: any Channel]>([:])
    private let requests = Locked(Requests())
    /// Told how many connections are open after each open and close, under the same lock, so the last figure it is
    /// told is the true one (told after the lock, an open on one event loop and a close on the other could leave
    /// the older figure last).
    private let publish: @Sendable (Int) -> Void

    init(publish: @escaping @Sendable (Int) -> Void) { self.publish = publish }

    private struct Requests {
        var inFlight = 0
        /// `waitForIdle` callers, resumed when `inFlight` drops to 0.
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// Registers an accepted connection; returns how many are open now, including it.
    func opened(_ channel: any Channel) -> Int {
        let count = channels.withLock { channels in
            channels[ObjectIdentifier(channel)] = channel
            publish(channels.count)
            return channels.count
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            channels.withLock { channels in
                channels.removeValue(forKey: ObjectIdentifier(channel))
                publish(channels.count)
            }
        }
        return count
    }

    func requestStarted() { requests.withLock { $0.inFlight += 1 } }

    func requestFinished() {
        let waiters = requests.withLock { requests -> [CheckedContinuation<Void, Never>] in
            requests.inFlight -= 1
            guard requests.inFlight == 0, !requests.idleWaiters.isEmpty else { return [] }
            defer { requests.idleWaiters.removeAll() }
            return Array(requests.idleWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    var requestsInFlight: Int { requests.withLock { $0.inFlight } }

    /// Waits until no request is under way, or `timeout` passed; returns whether it went idle. Woken by the last
    /// request to finish, not by polling.
    func waitForIdle(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.idle()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first || requestsInFlight == 0
        }
    }

    /// Returns once no request is under way, or when the task is cancelled.
    private func idle() async {
        let id = requests.withLock { requests in
            requests.nextWaiter += 1
            return requests.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Under the lock, so a cancellation handler that already ran (it sets the flag first) is seen.
                let now = requests.withLock { requests in
                    if requests.inFlight == 0 || Task.isCancelled { return true }
                    requests.idleWaiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            requests.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Closes every open connection.
    func closeAll() async {
        let open = channels.withLock { Array($0.values) }
        for channel in open { try? await channel.close() }
    }
}
