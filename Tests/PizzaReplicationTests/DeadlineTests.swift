import NIOCore
import NIOEmbedded
import PizzaCore
import Testing

@testable import PizzaReplication

/// What a request to the centre does with a value that comes after its caller stopped waiting: a connection made
/// just as the shipper gave up, which was dropped open (PostgresNIO's debug build trapped on it in a sanitizer run;
/// a release build left the session open at the centre).
@Suite("A deadline's late results")
struct DeadlineTests {
    /// Work that ends only when opened, whatever cancellation says (as a handshake that has already completed).
    final class Gate: Sendable {
        private let waiting = Locked<(open: Bool, continuations: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = waiting.withLock { state in
                    if state.open { return true }
                    state.continuations.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            waiting.withLock { state in
                state.open = true
                defer { state.continuations = [] }
                return state.continuations
            }.forEach { $0.resume() }
        }
    }

    struct TimedOut: Error {}

    /// `Deadline.run` with `TimedOut` as its timeout, every discarded value kept in `discarded`.
    private static func run(
        _ seconds: Int, _ discarded: Locked<[Int]>, _ work: @escaping @Sendable () async throws -> Int
    ) async throws -> Int {
        try await Deadline.run(
            seconds: seconds, onTimeout: { TimedOut() },
            discardingLate: { value in discarded.withLock { $0.append(value) } }, work)
    }

    /// Waits up to five seconds for `discarded` to hold something.
    private func settled(_ discarded: Locked<[Int]>) async throws -> [Int] {
        let deadline = ContinuousClock.now + .seconds(5)
        while discarded.value.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        // Room for a second, wrong, call.
        try await Task.sleep(for: .milliseconds(100))
        return discarded.value
    }

    @Test("a value made after the caller was cancelled goes to discard, once; the caller heard CancellationError")
    func lateAfterCancellation() async throws {
        let gate = Gate()
        let discarded = Locked<[Int]>([])
        let caller = Task {
            try await Self.run(60, discarded) {
                await gate.wait()
                return 7
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(discarded.value.isEmpty)
        gate.open()
        #expect(try await settled(discarded) == [7])
    }

    @Test("a value made after the time ran out goes to discard, once; the caller heard the timeout")
    func lateAfterTimeout() async throws {
        let gate = Gate()
        let discarded = Locked<[Int]>([])
        await #expect(throws: TimedOut.self) {
            try await Self.run(1, discarded) {
                await gate.wait()
                return 8
            }
        }
        #expect(discarded.value.isEmpty)
        gate.open()
        #expect(try await settled(discarded) == [8])
    }

    struct Closed: Error {}

    @Test("a request whose connection closes fails at once with the close's error, also when it had closed before")
    func connectionClosed() async throws {
        // The thread-safe test loop: the close is completed from whichever thread the test resumes on (NIO
        // reported misuse of an EmbeddedEventLoop used so in a CI run).
        let loop = NIOAsyncTestingEventLoop()
        let closed = loop.makePromise(of: Void.self)
        let end = ConnectionEnd(closed.futureResult)
        let gate = Gate()
        defer { gate.open() }
        // A query PostgresNIO never answers once PostgreSQL's shutdown closed its connection.
        let unanswered: @Sendable () async throws -> Int = {
            await gate.wait()
            return 1
        }
        let caller = Task {
            try await Deadline.run(
                seconds: 120, onTimeout: { TimedOut() }, endsWith: end, onEnded: { Closed() }, unanswered)
        }
        try await Task.sleep(for: .milliseconds(50))
        closed.succeed()
        // Closed, not TimedOut: the close ended the wait, not the deadline (no clock is read: a CI run's starved
        // thread pool once held this test 29 s with nothing wrong).
        await #expect(throws: Closed.self) { try await caller.value }
        // The next request on the closed connection is refused at once.
        await #expect(throws: Closed.self) {
            try await Deadline.run(
                seconds: 120, onTimeout: { TimedOut() }, endsWith: end, onEnded: { Closed() }, unanswered)
        }
        await loop.shutdownGracefully()
    }

    @Test("a value in time is the caller's and is not discarded; a failure in time is the caller's error")
    func inTime() async throws {
        let discarded = Locked<[Int]>([])
        let value = try await Self.run(60, discarded) { 9 }
        #expect(value == 9)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await Self.run(60, discarded) { () async throws -> Int in throw Refused() }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(discarded.value.isEmpty)
    }
}
