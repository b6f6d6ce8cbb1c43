import ArgumentParser
import PizzaProtocol
import PizzaWire

struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "What leaves the shop: the kitchen's printers and the webhooks, what waits for each and why.",
        subcommands: [List.self, Retry.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List each printer and webhook: its state, what waits, the last error, the next attempt.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            try await global.call(.outboxList, as: OutboxListAnswer.self) { result in
                guard !result.destinations.isEmpty else {
                    print("no printers or webhooks (printers: and webhooks: in pizzad.yaml)")
                    return
                }
                Output.table(
                    ["NAME", "KIND", "STATE", "PRINTER", "WAITING", "OLDEST", "NEXT TRY", "LAST ERROR"],
                    result.destinations.map { destination -> [String] in
                        [
                            destination.name, destination.kind.rawValue, destination.state,
                            destination.printer?.replacing("_", with: " ") ?? "-", String(destination.waiting),
                            destination.oldestWaitingAt.map { Output.time($0) } ?? "-",
                            destination.nextAttemptAt.map { Output.time($0) } ?? "-",
                            destination.disabledReason.map { "disabled: \($0)" } ?? destination.lastError ?? "-",
                        ]
                    }, right: [4])
                for destination in result.destinations where destination.state == "disabled" {
                    print(
                        "\(destination.name) is disabled; pizzactl outbox retry \(destination.name) sends what waits")
                }
            }
        }
    }

    struct Retry: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Send what waits for a printer or webhook now, and enable it again if it was disabled.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        @Argument(help: "The printer's or webhook's name.")
        var name: String

        func run() async throws {
            try await global.call(.outboxRetry, [("name", .string(name))], as: OutboxRetryAnswer.self) { _ in
                print("\(name): trying now (pizzactl outbox shows how it went)")
            }
        }
    }
}
