import ArgumentParser
import PizzaProtocol
import PizzaWire

struct Status: AsyncParsableCommand, PizzactlCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's state: version, database, orders by status.", discussion: GlobalOptions.help)

    @ParentCommand var pizzactl: Pizzactl

    func run() async throws {
        try await global.call(.status) { status in
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
