/// How far apart a shipper starts its batches when it is not catching up (a full batch is followed at once).
///
/// Every batch costs the centre a transaction whatever it holds: at a chain's centre a batch of one entry costs
/// PostgreSQL about twenty times an entry's share of `COPY`, a batch of hundreds about two (docs/PERFORMANCE.md, "A
/// chain of shops"). A centre that has more to do than it can is seen by its shops as slow answers to small
/// batches (the time waiting in PgBouncer's queue for a server connection, or for a CPU): a shop then spaces its
/// batches by several times that wait, so that each carries more and the centre makes fewer transactions until it
/// keeps up. Once answers are prompt again the spacing shrinks by a fifth an answer (from the ceiling, about 25
/// answers and 40 s), not at once: a centre that keeps up only because its shops space their batches would queue
/// again as soon as they stopped. Halving instead, measured at 1,000 shops, gave batches of 12-28 entries and
/// 2.0-2.8× `COPY`'s CPU per event; a fifth, 27-32 entries and 1.9-2.6×. A shop whose centre answers promptly
/// ships as before, at most every ``floor``, and a shop with nothing left to send drops its spacing (``quiet()``).
///
/// The wait is measured against the fastest answer of the connection so far (creeping up by 1% an answer, so
/// that a link that became slower for good is learnt), so a shop far from its centre, whose every answer takes
/// the round trip, is not taken for one whose centre is queueing. The connection's own set-up counts as its first
/// answer: it takes a few round trips but no server connection (PgBouncer answers it, or a new backend), so a shop
/// that connects while the centre is already queueing (a chain's shops starting together, or coming back after a
/// restart of the centre) sees its first answers as slow. Measured at 1,000 shops started into a saturated centre,
/// without it no shop spaced its batches: every answer it had seen was as slow as the first.
struct BatchPacing {
    /// Batches start at least this far apart under steady load, so that they grow with it instead of shipping a
    /// few entries each; the first change after a quiet spell still goes at once.
    static let floor: Duration = .milliseconds(50)
    /// An answer to a small batch this much slower than the connection's fastest: the centre is queueing.
    static let queueing: Duration = .milliseconds(250)
    /// How many times the wait the batches are spaced by then.
    static let factor = 20
    /// The longest spacing (also how long a shop's newest entries may wait while its centre is saturated).
    static let ceiling: Duration = .seconds(10)

    /// Batches of at most this many entries tell the centre's queueing apart from its work on the batch.
    let smallBatch: Int
    private(set) var fastest: Duration?
    /// The spacing before the next batch.
    private(set) var spacing = Self.floor

    /// `connected`: how long the connection took to set up, when known.
    init(batchSize: Int, connected: Duration? = nil) {
        smallBatch = max(1, batchSize / 10)
        fastest = connected
    }

    /// The centre answered a batch of `entries` in `time`.
    mutating func answered(entries: Int, in time: Duration) {
        let fastest = min(time, self.fastest.map { $0 * 1.01 } ?? time)
        self.fastest = fastest
        let waited = time - fastest
        if entries <= smallBatch, waited > Self.queueing {
            spacing = min(Self.ceiling, waited * Self.factor)
        } else {
            spacing = max(Self.floor, spacing * 0.8)
        }
    }

    /// The shop had nothing to send after a spacing: it is not behind, so there is nothing for a spacing to gather.
    /// The next batches go as for a prompt centre until an answer shows a queue again (one small batch answered
    /// slowly is enough). Kept instead, a spacing learnt in a saturated spell held each order of a quiet evening
    /// after it back by up to that spacing: measured at 1,000 shops, a lag max of 1.7 s where p99 was 5 ms.
    mutating func quiet() {
        spacing = Self.floor
    }
}
