import ArgumentParser
import PizzaProtocol
import PizzaWire

struct Status: AsyncParsableCommand, PizzactlCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the daemon's state: version, database, orders by status.",
        discussion: GlobalOptions.help)

    @ParentCommand var pizzactl: Pizzactl

    func run() async throws {
        try await global.call(.status, as: StatusAnswer.self) { status in
            let database = status.database
            print("pizzad \(status.version), pid \(status.pid), up \(status.uptime)s, storage \(status.storage)")
            print(
                "database: \(database.path) (\(database.bytes) bytes, schema \(database.schemaVersion), "
                    + "journal \(database.journalMode), synchronous \(database.synchronous))")
            print(
                "connections: \(status.connections), watchers: \(status.watchers), "
                    + "repository subscribers: \(status.delegates)")
            print("metrics: \(status.metrics ?? "off (set metrics.listen, or enable pizzad-metrics.socket)")")
            Output.table(
                ["STATUS", "ORDERS"], status.orders.members.map { [Output.status($0.name), String($0.value)] },
                right: [1])
        }
    }
}
