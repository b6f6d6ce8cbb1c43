import PizzaCore
import NIOCore
import Synchronization

/// Counts open connections and requests under way, so shutdown can wait for the requests to finish.
final class ConnectionTracker: Sendable {
    private let channels = Locked<[ObjectIdentifier: any Channel]>([:])
    private let inFlight = Atomic<Int>(0)

    /// Registers an accepted connection; returns how many are open now, including it.
    func opened(_ channel: any Channel) -> Int {
        let count = channels.withLock { channels in
            channels[ObjectIdentifier(channel)] = channel
            return channels.count
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.channels.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
        }
        return count
    }

    var openCount: Int { channels.withLock { $0.count } }

    func requestStarted() { inFlight.add(1, ordering: .relaxed) }
    func requestFinished() { inFlight.subtract(1, ordering: .relaxed) }
    var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Waits until no request is under way, or `timeout` passed; returns whether it went idle.
    func waitForIdle(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while requestsInFlight > 0 {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Closes every open connection.
    func closeAll() async {
        let open = channels.withLock { Array($0.values) }
        for channel in open { try? await channel.close() }
    }
}
