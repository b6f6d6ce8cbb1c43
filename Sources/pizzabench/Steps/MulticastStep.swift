import Foundation

/// Multicast dispatch against its alternatives.
enum MulticastStep {
    static func run() {
        print("multicast dispatch, ns per delegate call (best of 7 rounds, the four ways taking turns):")
        Bench.table(
            ["delegates", "direct protocol call", "MulticastDelegate", "seed weak-box array", "NotificationCenter"],
            [1, 3, 100].map { count in
                let row = MulticastBench.measure(delegates: count)
                return [
                    "\(count)", Bench.format(row.direct), Bench.format(row.multicast), Bench.format(row.seed),
                    Bench.format(row.notificationCenter),
                ]
            })
        print("")
    }
}
