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
            try await global.call(.outboxList) { result in
                let destinations = result["destinations"]?.arrayValue ?? []
                guard !destinations.isEmpty else {
                    print("no printers or webhooks (printers: and webhooks: in pizzad.yaml)")
                    return
                }
                Output.table(
                    ["NAME", "KIND", "STATE", "PRINTER", "WAITING", "OLDEST", "NEXT TRY", "LAST ERROR"],
                    destinations.map { destination -> [String] in
                        let printer: String = destination["printer"]?.stringValue?.replacing("_", with: " ") ?? "-"
                        let oldest: String = destination["oldestWaitingAt"]?.stringValue.map { Output.time($0) } ?? "-"
                        let next: String = destination["nextAttemptAt"]?.stringValue.map { Output.time($0) } ?? "-"
                        let problem: String =
                            destination["disabledReason"]?.stringValue.map { "disabled: \($0)" }
                            ?? destination["lastError"]?.stringValue ?? "-"
                        return [
                            Output.text(destination["name"]), Output.text(destination["kind"]),
                            Output.text(destination["state"]), printer, Output.text(destination["waiting"]), oldest,
                            next, problem,
                        ]
                    }, right: [4])
                for destination in destinations where destination["state"]?.stringValue == "disabled" {
                    print(
                        "\(Output.text(destination["name"])) is disabled; pizzactl outbox retry "
                            + "\(Output.text(destination["name"])) sends what waits")
                }
            }
        }
    }

    struct Retry: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send what waits for a printer or webhook now, and enable it again if it was disabled.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        @Argument(help: "The printer's or webhook's name.")
        var name: String

        func run() async throws {
            try await global.call(.outboxRetry, [("name", .string(name))]) { _ in
                print("\(name): trying now (pizzactl outbox shows how it went)")
            }
        }
    }
}
