import Foundation
import PizzaTesting

extension ChainBench {
    /// One step of the chain run: what was fed, what the centre did and cost, the shipping lag.
    struct Phase {
        var name: String
        var shops: Int
        var events = 0
        /// From the first order until the centre held the last one.
        var seconds = 0.0
        var postgresCPU = 0.0
        var bouncerCPU = 0.0
        var copyMicroseconds = 0.0
        /// The COPY baseline's CPU seconds: below a few of the kernel's 10 ms ticks it says nothing.
        var copyCPU = 0.0
        /// The same rows loaded with COPY into the centre's own tables, as full as the step left them.
        var intoCentreMicroseconds = 0.0
        var intoCentreCPU = 0.0
        /// The same COPY while as many shops without a shipper are fed as the step fed (saturated steps only): what
        /// the centre's limit is on a machine doing the shops' kitchen work beside it, as the step's machine was.
        var besideMicroseconds = 0.0
        var besideCPU = 0.0
        /// Orders a second into the shops while the step fed them, and into the kitchens while COPY ran beside them.
        var fedPerSecond = 0.0
        var besideFedPerSecond = 0.0
        var lag: (p50: Double, p99: Double, max: Double, worstShopP99: Double) = (0, 0, 0, 0)
        var waitingMax = 0
        var errors: Int64 = 0
        /// The central transactions the shippers made (one per batch).
        var batches: Int64 = 0

        var perSecond: Double { Double(events) / max(seconds, 0.001) }
        var postgresMicroseconds: Double { postgresCPU * 1e6 / Double(max(events, 1)) }
        var bouncerMicroseconds: Double { bouncerCPU * 1e6 / Double(max(events, 1)) }
    }

    /// Runs the chain; true when every target held and every shop's history is at the centre exactly once.
    /// With `saturatedOnly`, only the saturated steps run (no evening, no faults): for trying a change quickly.
}
