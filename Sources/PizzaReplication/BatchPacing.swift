/// How far apart a shipper starts its batches when it is not catching up (a full batch is followed at once).
///
/// Every batch costs the centre a transaction whatever it holds: at a chain's centre a batch of one entry costs
/// PostgreSQL about twenty times an entry's share of `COPY`, a batch of hundreds about two (docs/PERFORMANCE.md, "A
/// chain of shops"). A centre that has more to do than it can is seen by its shops as slow answers to small
/// batches (the time waiting in PgBouncer's queue for a server connection, or for a CPU): a shop then spaces its
/// batches by several times that wait, so that each carries more and the centre makes fewer transactions until it
/// keeps up. A shop whose centre answers promptly ships as before, at most every ``floor``.
///
/// The wait is measured against the fastest answer of the connection so far (creeping up by 1% an answer, so
/// that a link that became slower for good is learnt), so a shop far from its centre, whose every answer takes
/// the round trip, is not taken for one whose centre is queueing.
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

    init(batchSize: Int) { smallBatch = max(1, batchSize / 10) }

    /// The centre answered a batch of `entries` in `time`.
    mutating func answered(entries: Int, in time: Duration) {
        let fastest = min(time, self.fastest.map { $0 * 1.01 } ?? time)
        self.fastest = fastest
        let waited = time - fastest
        if entries <= smallBatch, waited > Self.queueing {
            spacing = min(Self.ceiling, waited * Self.factor)
        } else {
            spacing = max(Self.floor, spacing / 2)
        }
    }
}
