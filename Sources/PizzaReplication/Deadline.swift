import NIOCore
import PizzaCore

/// A time limit that does not wait for the work it gave up on.
///
/// A task group would: its scope ends only when every child has, so a request stuck in a client library that
/// ignores cancellation would hold the shipper past its deadline. Here the work runs in a task of its own; when the
/// time is up the caller gets the timeout error at once, the work is cancelled and left to end by itself.
enum Deadline {
    /// Runs `work` for at most `seconds`. A value `work` makes after the caller stopped waiting for it (the time ran
    /// out, or the caller's task was cancelled) is nobody's: it goes to `discard` (a connection made late is closed
    /// there), once. When `end` comes first (the connection the work runs on closed), the caller gets
    /// `onEnded`'s error at once rather than waiting out the time: PostgresNIO left a query sent as PostgreSQL's fast
    /// shutdown closed the connection unanswered.
    static func run<T: Sendable>(
        seconds: Int, onTimeout: @escaping @Sendable () -> any Error,
        discardingLate discard: (@Sendable (T) async -> Void)? = nil,
        endsWith end: ConnectionEnd? = nil,
        onEnded: @escaping @Sendable () -> any Error = { CancellationError() },
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = Locked<CheckedContinuation<T, any Error>?>(nil)
        let tasks = Locked<[Task<Void, Never>]>([])
        /// Hands the first result to the caller and says so; a later one is not handed (false).
        @Sendable func finish(_ result: Result<T, any Error>) -> Bool {
            let waiting = outcome.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }
            // Before the caller goes on (and may start its next request on the connection): this request's watch
            // ends here, and only when this result is the one handed.
            if waiting != nil { end?.unwatch() }
            waiting?.resume(with: result)
            tasks.withLock { $0 }.forEach { $0.cancel() }
            return waiting != nil
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.withLock { $0 = continuation }
                let worker = Task {
                    let result: Result<T, any Error>
                    do { result = .success(try await work()) } catch { result = .failure(error) }
                    if !finish(result), case .success(let late) = result, let discard { await discard(late) }
                }
                let timer = Task {
                    guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
                    // Claim the outcome before the slow part, so a late answer cannot slip in between.
                    guard
                        let waiting = outcome.withLock({ c -> CheckedContinuation<T, any Error>? in
                            defer { c = nil }
                            return c
                        })
                    else { return }
                    worker.cancel()
                    waiting.resume(throwing: onTimeout())
                }
                tasks.withLock { $0 = [worker, timer] }
                end?.watch { _ = finish(.failure(onEnded())) }
                // A result that came before the tasks were recorded still cancels the timer.
                if outcome.withLock({ $0 == nil }) { timer.cancel() }
                if Task.isCancelled { _ = finish(.failure(CancellationError())) }
            }
        } onCancel: {
            _ = finish(.failure(CancellationError()))
        }
    }
}

/// Whether a connection has closed, for the one request waiting on it (``Deadline`` fails that request at once).
/// One observer of the connection's close for its whole life, not one per request, so a connection that lives for
/// millions of requests holds nothing per request.
final class ConnectionEnd: Sendable {
    private let state = Locked<(ended: Bool, waiting: (@Sendable () -> Void)?)>((false, nil))

    /// Watches `closed`, the connection's close future.
    init(_ closed: EventLoopFuture<Void>) {
        let state = state
        closed.whenComplete { _ in
            let waiting = state.withLock { state in
                state.ended = true
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?()
        }
    }

    /// Calls `fail` when the connection closes, or at once when it has; replaces the request watched before.
    func watch(_ fail: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state in
            if !state.ended { state.waiting = fail }
            return state.ended
        }
        if ended { fail() }
    }

    /// Stops watching for the request that ended.
    func unwatch() { state.withLock { $0.waiting = nil } }
}
