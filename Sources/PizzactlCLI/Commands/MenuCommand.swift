import ArgumentParser
import PizzaProtocol
import PizzaWire

struct MenuCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "menu", abstract: "Show the menu, or take an item off it and put it back (\"86\").",
        subcommands: [Show.self, Off.self, On.self], defaultSubcommand: Show.self)
}

extension MenuCommand {
    struct Show: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the menu: kinds, prices, crusts, extras, products, VAT rates, fees, what is off.",
            discussion: GlobalOptions.help)

        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            try await global.call(.menu, as: MenuAnswer.self) { menu in
                Output.table(
                    ["KIND"] + menu.sizes + ["DEFAULTS"],
                    menu.kinds.map { kind in
                        [kind.name + (kind.available ? "" : " (off)")]
                            + menu.sizes.map { size in kind.prices[size].map { Output.money($0, menu.currency) } ?? "-"
                            }
                            + ["\(kind.size) \(kind.crust)"]
                    }, right: Set(1...max(1, menu.sizes.count)))
                print("Crusts: \(menu.crusts.joined(separator: ", "))")
                print(
                    "Extras: "
                        + menu.extras.members.map { "\($0.name) +\(Output.money($0.value, menu.currency))" }
                        .joined(separator: ", "))
                if !menu.products.isEmpty {
                    Output.table(
                        ["PRODUCT", "NAME", "CATEGORY", "PRICE", "VAT", "OPTIONS"],
                        menu.products.map { product in
                            [
                                product.id + (product.available ? "" : " (off)"), Output.safe(product.name),
                                product.category,
                                Output.money(product.price, menu.currency), product.tax,
                                product.options.members.map { "\($0.name) +\(Output.money($0.value, menu.currency))" }
                                    .joined(separator: ", "),
                            ]
                        }, right: [3])
                }
                let rates = menu.taxes.members.map { "\($0.name) \(Double($0.value) / 100)%" }
                print("VAT (prices include it): \(rates.joined(separator: ", ")); pizzas at \(menu.pizzaTax)")
                for fee in menu.fees.members {
                    print("Fee (\(fee.name)): \(Output.money(fee.value.amount, menu.currency)) at \(fee.value.tax)")
                }
                if !menu.unavailable.isEmpty {
                    print("Off the menu now (86): \(menu.unavailable.map(Output.safe).joined(separator: ", "))")
                }
            }
        }
    }

    struct Off: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "off",
            abstract: "Take a kind, product or extra off the menu until it is put back: orders for it are refused.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The kind, product or extra (as the menu names it).") var item: String

        func run() async throws { try await MenuCommand.set(item, available: false, global) }
    }

    struct On: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "on", abstract: "Put a kind, product or extra back on the menu.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The kind, product or extra (as the menu names it).") var item: String

        func run() async throws { try await MenuCommand.set(item, available: true, global) }
    }

    static func set(_ item: String, available: Bool, _ global: GlobalOptions) async throws {
        try await global.call(
            .menuSetAvailable, [("item", .string(item)), ("available", .bool(available))], as: AvailabilityAnswer.self
        ) { answer in
            print("\(Output.safe(answer.item)) is \(answer.available ? "back on the menu" : "off the menu (86)")")
        }
    }
}
