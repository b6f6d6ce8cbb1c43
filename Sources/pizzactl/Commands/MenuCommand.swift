import ArgumentParser
import PizzaProtocol
import PizzaWire

struct MenuCommand: AsyncParsableCommand, PizzactlCommand {
    static let configuration = CommandConfiguration(
        commandName: "menu", abstract: "Show the menu: kinds, prices, crusts, extras.", discussion: GlobalOptions.help)

    @ParentCommand var pizzactl: Pizzactl

    func run() async throws {
        try await global.call(.menu) { menu in
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
