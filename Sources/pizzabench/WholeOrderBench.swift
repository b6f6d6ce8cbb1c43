import Foundation
import PizzaTesting

/// What a shop's whole order costs (CONTRACT section 17): a realistic order (two pizzas, a drink, a side, a delivery
/// address) made at 16 clients, and the same order made then paid, each as CPU of pizzad an order against an older
/// pizzad's two-pizza order (`--before`: the tree the issue measured, b5661e7), the builds taking turns in each round
/// so that the machine's drift falls on both. Targets: at most 1.15× and 2.1× the older build's CPU an order.
enum WholeOrderBench {
    static let targets = (realistic: 1.15, paid: 2.1)

    /// Runs `rounds` rounds of the three loads and prints each round's CPU an order and the ratios; true when the
    /// medians hold both targets. The socket bound (socketwork.c: the same rows behind pizzad's design in C) makes
    /// the same three orders in each round, so that the targets can be read against what the rows themselves cost:
    /// the bound's whole order against its own two-pizza order, and pizzad's against the bound's.
    static func report(pizzad: String, before: String, work: String, seconds: Double, rounds: Int) throws -> Bool {
        let bound = try SocketWork(migrations: Steps.migrations, directory: work)
        print("Whole order: pizzad's CPU an order at 16 clients, against \(before)'s two-pizza order")
        print("and the socket bound's (socketwork.c) CPU an order for the same three orders, in the same rounds")
        print(
            "round | before: two pizzas (µs) | realistic (µs) | realistic + paid (µs) | ratios | "
                + "bound: two pizzas, realistic, paid (µs) | bound's ratios")
        var ratios: [String: [Double]] = [:]
        for round in 1...rounds {
            var figures: [String: Double] = [:]
            // The builds take turns going first.
            let order = round % 2 == 1 ? ["before", "realistic", "paid"] : ["paid", "realistic", "before"]
            for step in order {
                let directory = work + "/whole-\(round)-\(step)"
                // The older build makes two pizzas; this one and the bound, the step's order.
                let same: SocketWork.Order = step == "before" ? .twoPizzas : step == "realistic" ? .realistic : .paid
                let daemon = try PizzadProcess(
                    binary: step == "before" ? before : pizzad, config: same.config, directory: directory,
                    logLevel: "warning")
                defer { _ = try? daemon.stop() }
                figures[step] = try same.load(daemon, clients: 16, seconds: seconds).daemonCPUMicrosPerOperation
                figures["bound " + step] = try bound.run(clients: 16, seconds: seconds, order: same).cpuMicrosPerOrder
            }
            func figure(_ name: String) -> Double { figures[name] ?? 0 }
            func ratio(_ name: String, _ base: String) -> Double { figure(name) / max(figure(base), 0.001) }
            let these = [
                "realistic": ratio("realistic", "before"), "paid": ratio("paid", "before"),
                "bound realistic": ratio("bound realistic", "bound before"),
                "bound paid": ratio("bound paid", "bound before"), "before/bound": ratio("before", "bound before"),
                "realistic/bound": ratio("realistic", "bound realistic"), "paid/bound": ratio("paid", "bound paid"),
            ]
            for (name, value) in these { ratios[name, default: []].append(value) }
            func µs(_ name: String) -> String { Bench.format(figure(name), 1) }
            func times(_ name: String) -> String { Bench.format(these[name] ?? 0, 2) + "×" }
            print(
                "\(round) | \(µs("before")) | \(µs("realistic")) | \(µs("paid")) | \(times("realistic")), "
                    + "\(times("paid")) | \(µs("bound before")), \(µs("bound realistic")), \(µs("bound paid")) | "
                    + "\(times("bound realistic")), \(times("bound paid"))")
        }
        func median(_ name: String) -> Double {
            let values = (ratios[name] ?? [0]).sorted()
            return values[values.count / 2]
        }
        let held = median("realistic") <= targets.realistic && median("paid") <= targets.paid
        print(
            "median: realistic \(Bench.format(median("realistic"), 2))× (target ≤ \(targets.realistic)×), "
                + "created and paid \(Bench.format(median("paid"), 2))× (target ≤ \(targets.paid)×): "
                + (held ? "held" : "NOT held"))
        // The targets restated against the bound: the older build's two-pizza order is k times the bound's, the
        // bound's whole order r times its own two-pizza order, so a target t asks pizzad for t × k / r of the bound.
        let k = median("before/bound")
        print(
            "the bound's own whole order: realistic \(Bench.format(median("bound realistic"), 2))×, made and paid "
                + "\(Bench.format(median("bound paid"), 2))× its two-pizza order; the older build's two-pizza order "
                + "\(Bench.format(k, 2))× the bound's (medians)")
        print(
            "so the targets ask pizzad for the realistic order at ≤ "
                + "\(Bench.format(targets.realistic * k / median("bound realistic"), 2))× the bound's (it is at "
                + "\(Bench.format(median("realistic/bound"), 2))×), made and paid at ≤ "
                + "\(Bench.format(targets.paid * k / median("bound paid"), 2))× (it is at "
                + "\(Bench.format(median("paid/bound"), 2))×)")
        return held
    }
}

extension Load {
    /// Pays order `id` by card for the total `answer` (its creation's) says, and checks the payment was taken.
    static func pay(id: Substring, answer: String, request: Int, on connection: RawConnection) throws {
        guard let at = answer.range(of: #""total":"#) else { throw BenchError("no total in \(answer.prefix(300))") }
        let total = answer[at.upperBound...].prefix { $0.isNumber }
        let line =
            #"{"jsonrpc":"2.0","id":\#(request),"method":"order.pay","params":{"id":\#(id),"tender":"card","amount":\#(total)}}"#
        try connection.send(Array((line + "\n").utf8))
        guard let paid = try connection.readLine(), paid.hasPrefix(#"{"jsonrpc":"2.0","id":\#(request),"result":"#)
        else {
            throw BenchError("order.pay failed")
        }
    }
}
