import Testing

@testable import PizzaReplication

@Suite("How far apart a shipper starts its batches")
struct BatchPacingTests {
    @Test("a centre that answers promptly gets a batch every 50 ms at most, however far away it is")
    func promptCentre() {
        var pacing = BatchPacing(batchSize: 500)
        for _ in 0..<100 { pacing.answered(entries: 3, in: .milliseconds(2)) }
        #expect(pacing.spacing == BatchPacing.floor)
        // A shop on a slow link: every answer takes the round trip, none waits in a queue; setting the connection
        // up took several.
        var far = BatchPacing(batchSize: 500, connected: .milliseconds(2_400))
        for _ in 0..<100 { far.answered(entries: 3, in: .milliseconds(600)) }
        #expect(far.spacing == BatchPacing.floor)
    }

    @Test("small batches answered slowly (the centre queueing) space the next ones by 20 times the wait, at most 10 s")
    func queueingCentre() {
        var pacing = BatchPacing(batchSize: 500)
        pacing.answered(entries: 2, in: .milliseconds(5))
        pacing.answered(entries: 2, in: .milliseconds(305))
        #expect(pacing.spacing > .milliseconds(5_900) && pacing.spacing <= .milliseconds(6_000))
        pacing.answered(entries: 2, in: .seconds(3))
        #expect(pacing.spacing == BatchPacing.ceiling)
    }

    @Test("once the centre answers promptly again the spacing shrinks by a fifth an answer, back to 50 ms")
    func recovers() {
        var pacing = BatchPacing(batchSize: 500)
        pacing.answered(entries: 2, in: .milliseconds(5))
        pacing.answered(entries: 2, in: .seconds(2))
        #expect(pacing.spacing == .seconds(10))
        pacing.answered(entries: 40, in: .milliseconds(6))
        #expect(pacing.spacing == .seconds(8))
        for _ in 0..<20 { pacing.answered(entries: 40, in: .milliseconds(6)) }
        #expect(pacing.spacing > BatchPacing.floor)
        for _ in 0..<5 { pacing.answered(entries: 40, in: .milliseconds(6)) }
        #expect(pacing.spacing == BatchPacing.floor)
    }

    @Test("a shop that connects while the centre queues: its first answers are slow against the connection's set-up")
    func connectsIntoAQueue() {
        var pacing = BatchPacing(batchSize: 500, connected: .milliseconds(8))
        pacing.answered(entries: 4, in: .milliseconds(1_500))
        #expect(pacing.spacing == BatchPacing.ceiling)
        // Without the set-up time, the first answer is all it knows: as slow as every other, so no queue is seen.
        var unseeded = BatchPacing(batchSize: 500)
        for _ in 0..<5 { unseeded.answered(entries: 4, in: .milliseconds(1_500)) }
        #expect(unseeded.spacing == BatchPacing.floor)
    }

    @Test("a shop with nothing left to send drops its spacing, and learns it again from one slow answer")
    func quietEndsTheSpacing() {
        var pacing = BatchPacing(batchSize: 500, connected: .milliseconds(5))
        pacing.answered(entries: 3, in: .seconds(2))
        #expect(pacing.spacing == BatchPacing.ceiling)
        pacing.quiet()
        #expect(pacing.spacing == BatchPacing.floor)
        // What it knew of the connection stays: the next small batch answered slowly spaces the batches again.
        pacing.answered(entries: 1, in: .milliseconds(400))
        #expect(pacing.spacing > .seconds(7) && pacing.spacing < .seconds(8))
    }

    @Test("a large batch that takes long is the centre's work on it, not a queue: no spacing from it")
    func largeBatchIsWork() {
        var pacing = BatchPacing(batchSize: 500)
        pacing.answered(entries: 1, in: .milliseconds(3))
        pacing.answered(entries: 500, in: .milliseconds(900))
        pacing.answered(entries: 120, in: .milliseconds(400))
        #expect(pacing.spacing == BatchPacing.floor)
    }
}
