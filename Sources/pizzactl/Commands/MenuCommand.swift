import ArgumentParser
import PizzaProtocol
import PizzaWire

struct MenuCommand: AsyncParsableCommand, PizzactlCommand {
    static let configuration = CommandConfiguration(
        commandName: "menu", abstract: "Show the menu: kinds, prices, crusts, extras, products, VAT rates, fees.",
        discussion: GlobalOptions.help)

    @ParentCommand var pizzactl: Pizzactl

    func run() async throws {
        try await global.call(.menu, as: MenuAnswer.self) { menu in
            Output.table(
                ["KIND"] + menu.sizes + ["DEFAULTS"],
                menu.kinds.map { kind in
                    [kind.name]
                        + menu.sizes.map { size in kind.prices[size].map { Output.money($0, menu.currency) } ?? "-" }
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
                            product.id, Output.safe(product.name), product.category,
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
        }
    }
}
