import ArgumentParser
import PizzaProtocol
import PizzaWire

struct Metrics: AsyncParsableCommand, PizzactlCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics", abstract: "Print the Prometheus metrics.", discussion: GlobalOptions.help)

    @ParentCommand var pizzactl: Pizzactl

    func run() async throws {
        try await global.call(.metrics, as: MetricsAnswer.self) { print($0.text, terminator: "") }
    }
}
