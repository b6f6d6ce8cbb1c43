import Foundation
import PizzaTesting
import PizzaWire

/// What a shop's whole order costs (CONTRACT section 17): a realistic order (two pizzas, a drink, a side, a delivery
/// address) made at 16 clients, and the same order made then paid, each as CPU of pizzad an order against an older
/// pizzad's two-pizza order (`--before`: the tree the issue measured, b5661e7), the builds taking turns in each round
/// so that the machine's drift falls on both. Targets: at most 1.15× and 2.1× the older build's CPU an order.
enum WholeOrderBench {
    /// The menu the realistic order is made from: the built-in one, with a drink, a side, VAT and a delivery fee.
    static let config = """
        menu:
          taxes: {food: 700, drinks: 1900}
          pizzaTax: food
          products:
            cola-033: {name: Cola 0.33 l, category: drinks, price: 250, tax: drinks}
            garlic-bread: {name: Garlic bread, category: sides, price: 450, tax: food, options: {extra-dip: 60}}
          fees:
            delivery: {amount: 250, tax: food}
        """

    /// Two pizzas, a drink, a side, delivered to an address, placed at once.
    static let realistic: [(String, JSONValue)] = [
        ("customer", "bench"),
        (
            "items",
            [
                ["kind": "chicken", "size": "L", "extras": ["olives"]], ["kind": "cheese"],
                ["product": "cola-033", "quantity": 2], ["product": "garlic-bread", "options": ["extra-dip"]],
            ]
        ),
        (
            "fulfilment",
            [
                "type": "delivery", "phone": "030 1234567",
                "address": ["street": "Hauptstr. 5", "postcode": "10115", "city": "Berlin"],
            ]
        ),
        ("place", true),
    ]

    static let targets = (realistic: 1.15, paid: 2.1)

    /// Runs `rounds` rounds of the three loads and prints each round's CPU an order and the ratios; true when the
    /// medians hold both targets.
    static func report(pizzad: String, before: String, work: String, seconds: Double, rounds: Int) throws -> Bool {
        print("Whole order: pizzad's CPU an order at 16 clients, against \(before)'s two-pizza order")
        print("round | before: two pizzas (µs) | realistic (µs) | realistic + paid (µs) | ratios")
        var realisticRatios: [Double] = []
        var paidRatios: [Double] = []
        for round in 1...rounds {
            var figures: [String: Double] = [:]
            // The builds take turns going first.
            let order = round % 2 == 1 ? ["before", "realistic", "paid"] : ["paid", "realistic", "before"]
            for step in order {
                let directory = work + "/whole-\(round)-\(step)"
                let daemon = try PizzadProcess(
                    binary: step == "before" ? before : pizzad, config: step == "before" ? nil : config,
                    directory: directory, logLevel: "warning")
                defer { _ = try? daemon.stop() }
                let result =
                    switch step {
                    case "before": try Load.create(daemon: daemon, clients: 16, seconds: seconds)
                    case "realistic": try Load.create(daemon: daemon, clients: 16, seconds: seconds, order: realistic)
                    default: try Load.create(daemon: daemon, clients: 16, seconds: seconds, order: realistic, pay: true)
                    }
                figures[step] = result.daemonCPUMicrosPerOperation
            }
            let base = figures["before"] ?? 1
            let realistic = (figures["realistic"] ?? 0) / base
            let paid = (figures["paid"] ?? 0) / base
            realisticRatios.append(realistic)
            paidRatios.append(paid)
            print(
                "\(round) | \(Bench.format(base, 1)) | \(Bench.format(figures["realistic"] ?? 0, 1)) | "
                    + "\(Bench.format(figures["paid"] ?? 0, 1)) | \(Bench.format(realistic, 2))×, \(Bench.format(paid, 2))×"
            )
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let held = median(realisticRatios) <= targets.realistic && median(paidRatios) <= targets.paid
        print(
            "median: realistic \(Bench.format(median(realisticRatios), 2))× (target ≤ \(targets.realistic)×), "
                + "created and paid \(Bench.format(median(paidRatios), 2))× (target ≤ \(targets.paid)×): "
                + (held ? "held" : "NOT held"))
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
