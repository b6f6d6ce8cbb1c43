import PizzaCore
import Testing

/// The shipper's and the outbox's wake-up: a ring nobody waited for wakes the next wait at once, unless silenced first
/// (the replication loop silences it before reading what the rings announce: a ring for entries it then shipped woke
/// its next idle wait at once, and the idle check's ping met a centre that had just frozen).
@Suite("Doorbell")
struct DoorbellTests {
    /// Starts `bell.wait` for up to an hour in a task; true once it has returned.
    private func waiting(_ bell: Doorbell) -> (Task<Void, Never>, Locked<Bool>) {
        let returned = Locked(false)
        let task = Task {
            await bell.wait(timeout: .seconds(3600))
            returned.withLock { $0 = true }
        }
        return (task, returned)
    }

    @Test("a ring before the wait wakes it at once; a silenced one does not, and the next ring does")
    func silence() async throws {
        let bell = Doorbell()
        bell.ring()
        let (first, firstReturned) = waiting(bell)
        await first.value
        #expect(firstReturned.value)

        bell.ring()
        bell.silence()
        let (second, secondReturned) = waiting(bell)
        try await Task.sleep(for: .milliseconds(300))
        #expect(!secondReturned.value, "a silenced ring woke the wait")
        bell.ring()
        await second.value
        #expect(secondReturned.value)
    }
}
