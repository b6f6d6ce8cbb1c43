import PizzaCore

/// A time limit that does not wait for the work it gave up on.
///
/// A task group would: its scope ends only when every child has, so a request stuck in a client library that
/// ignores cancellation would hold the shipper past its deadline. Here the work runs in a task of its own; when the
/// time is up the caller gets the timeout error at once, the work is cancelled and left to end by itself.
enum Deadline {
    /// Runs `work` for at most `seconds`. A value `work` makes after the caller stopped waiting for it (the time ran
    /// out, or the caller's task was cancelled) is nobody's: it goes to `discard` (a connection made late is closed
    /// there), once.
    static func run<T: Sendable>(
        seconds: Int, onTimeout: @escaping @Sendable () -> any Error,
        discardingLate discard: (@Sendable (T) async -> Void)? = nil,
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
                // A result that came before the tasks were recorded still cancels the timer.
                if outcome.withLock({ $0 == nil }) { timer.cancel() }
                if Task.isCancelled { _ = finish(.failure(CancellationError())) }
            }
        } onCancel: {
            _ = finish(.failure(CancellationError()))
        }
    }
}
