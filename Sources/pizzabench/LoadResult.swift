import Foundation
import Histogram
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting

/// One measured load: how many operations, how fast, how long each took.
struct LoadResult {
    var operations: Int
    var seconds: Double
    var latency: Histogram<UInt64>
    var daemonCPU: Double
    var peakRSS: Double
    /// CPU seconds the load generator itself used, when measured (it shares the machine with pizzad).
    var clientCPU: Double? = nil

    var perSecond: Double { Double(operations) / seconds }
}
