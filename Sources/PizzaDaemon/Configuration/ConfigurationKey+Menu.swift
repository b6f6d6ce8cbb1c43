/// The keys of a shop's whole menu (CONTRACT section 17): products, VAT rates and fees.
extension ConfigurationKey {
    /// `menu.products`.
    static let menuProducts = ConfigurationKey(
        path: "menu.products", kind: .menu, defaultText: "none",
        allowed:
            "a mapping of product id (lowercase letters, digits, '-') to {name, category, price (cents), tax (a rate "
            + "of menu.taxes), options? (a mapping of option to cents)}",
        applied: .onReload,
        summary: "What the shop sells beside pizzas: drinks, sides, desserts. A new product is an entry, not code.")

    /// `menu.taxes`.
    static let menuTaxes = ConfigurationKey(
        path: "menu.taxes", kind: .menu, defaultText: "none: 0",
        allowed: "a mapping of rate name to basis points from 0 to 10000 (700 is 7%)", applied: .onReload,
        summary: "The VAT rates prices include; an order keeps each line's rate from when it was added.")

    /// `menu.pizzaTax`.
    static let menuPizzaTax = ConfigurationKey(
        path: "menu.pizzaTax", kind: .menu, defaultValue: "none", allowed: "a rate of menu.taxes",
        applied: .onReload, summary: "The rate pizzas and their extras are sold at.")

    /// `menu.fees`.
    static let menuFees = ConfigurationKey(
        path: "menu.fees", kind: .menu, defaultText: "none",
        allowed: "{delivery: {amount (cents), tax (a rate of menu.taxes)}}", applied: .onReload,
        summary: "The fee added to every delivery order.")
}
