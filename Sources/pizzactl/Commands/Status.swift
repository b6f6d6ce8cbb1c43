import ArgumentParser
import PizzaProtocol

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's state: version, database, orders by status.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.call("daemon.status") { status in
            let database = status["database"]
            print(
                "pizzad \(Output.text(status["version"])), pid \(Output.text(status["pid"])), up \(Output.text(status["uptime"]))s, storage \(Output.text(status["storage"]))"
            )
            print(
                "database: \(Output.text(database?["path"])) (\(Output.text(database?["bytes"])) bytes, schema \(Output.text(database?["schemaVersion"])), journal \(Output.text(database?["journalMode"])), synchronous \(Output.text(database?["synchronous"])))"
            )
            print(
                "connections: \(Output.text(status["connections"])), watchers: \(Output.text(status["watchers"])), repository subscribers: \(Output.text(status["delegates"]))"
            )
            let metrics = status["metrics"]?.stringValue
            print("metrics: \(metrics ?? "off (set metrics.listen, or enable pizzad-metrics.socket)")")
            let orders = status["orders"]?.objectValue ?? []
            Output.table(["STATUS", "ORDERS"], orders.map { [Output.status($0.0), Output.text($0.1)] }, right: [1])
        }
    }
}

struct MenuCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "menu", abstract: "Show the menu: kinds, prices, crusts, extras.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.call("menu.list") { menu in
            let currency = menu["currency"]?.stringValue
            let sizes = (menu["sizes"]?.arrayValue ?? []).compactMap(\.stringValue)
            Output.table(
                ["KIND"] + sizes + ["DEFAULTS"],
                (menu["kinds"]?.arrayValue ?? []).map { kind in
                    [Output.text(kind["name"])]
                        + sizes.map { size in kind["prices"]?[size]?.intValue.map { Output.money($0, currency) } ?? "-"
                        }
                        + ["\(Output.text(kind["size"])) \(Output.text(kind["crust"]))"]
                }, right: Set(1...max(1, sizes.count)))
            print("Crusts: \((menu["crusts"]?.arrayValue ?? []).map { Output.text($0) }.joined(separator: ", "))")
            let extras = menu["extras"]?.objectValue ?? []
            print(
                "Extras: \(extras.map { "\($0.0) +\(Output.money($0.1.intValue, currency))" }.joined(separator: ", "))")
        }
    }
}

struct Metrics: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the Prometheus metrics.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.call("metrics.get") { result in print(result["text"]?.stringValue ?? "", terminator: "") }
    }
}
