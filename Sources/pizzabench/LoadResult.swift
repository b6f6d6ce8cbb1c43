import Foundation
import Histogram
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire

/// One measured load: how many operations, how fast, how long each took.
struct LoadResult {
    var operations: Int
    var seconds: Double
    var latency: Histogram<UInt64>
    var daemonCPU: Double
    var peakRSS: Double
    /// CPU seconds the load generator itself used, when measured (it shares the machine with pizzad).
    var clientCPU: Double? = nil
    /// The daemon's group commits over the whole run, when read.
    var groupCommits: GroupCommits? = nil
    /// Requests that replayed an existing `ref` (not in `operations` or `latency`), and their latencies.
    var replays: (count: Int, latency: Histogram<UInt64>)? = nil

    /// The daemon's CPU per operation, in µs.
    var daemonCPUMicrosPerOperation: Double { daemonCPU / Double(max(1, operations)) * 1e6 }

    struct GroupCommits {
        var commits: Double
        var changes: Double
        /// From BEGIN to a durable COMMIT, summed.
        var seconds: Double

        var changesPerCommit: Double { commits > 0 ? changes / commits : 0 }
        var millisecondsPerCommit: Double { commits > 0 ? seconds / commits * 1e3 : 0 }
    }

    var perSecond: Double { Double(operations) / seconds }
}
