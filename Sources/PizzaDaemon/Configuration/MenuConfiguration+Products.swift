import PizzaCore
import Yams

/// The parts of `menu` beside the pizzas (CONTRACT section 17): `taxes`, `pizzaTax`, `products` and `fees`. Kinds,
/// products, extras and categories share one namespace: a clash is refused.
extension MenuConfiguration {
    static let productKeys: Set<String> = ["name", "category", "price", "tax", "options"]

    /// `menu` with the section's taxes, products and fees read into it.
    static func whole(_ menu: Menu, from mapping: Node.Mapping, file: String) throws(ConfigurationError) -> Menu {
        var menu = menu
        if let taxes = mapping["taxes"] {
            guard let rates = taxes.mapping, rates.count > 0 else {
                throw ConfigurationSchema.wrongType(file, "menu.taxes", "a mapping of rate name to basis points")
            }
            var parsed: [String: Int64] = [:]
            for (nameNode, bpNode) in rates {
                let name = nameNode.string ?? ""
                guard isName(name) else {
                    throw ConfigurationError(
                        source: file, key: "menu.taxes.\(name)", problem: "is not a valid rate name",
                        allowed: "lowercase letters, digits and '-'")
                }
                guard let text = bpNode.string, let bp = Int64(text), (0...TaxRate.maximumBasisPoints).contains(bp)
                else {
                    throw ConfigurationError(
                        source: file, key: "menu.taxes.\(name)", problem: "'\(bpNode.string ?? "…")' is not a rate",
                        allowed: "basis points from 0 to 10000 (700 is 7%)")
                }
                parsed[name] = bp
            }
            menu.taxes = parsed
        }
        func rate(_ node: Node?, key: String) throws(ConfigurationError) -> String {
            guard let name = node?.string else {
                throw ConfigurationSchema.wrongType(file, key, "a rate of menu.taxes")
            }
            guard menu.taxes[name] != nil else {
                throw ConfigurationError(
                    source: file, key: key, problem: "'\(name)' is not a rate of menu.taxes",
                    allowed: menu.taxes.keys.sorted().joined(separator: ", "))
            }
            return name
        }
        if let pizzaTax = mapping["pizzaTax"] {
            menu.pizzaTax = try rate(pizzaTax, key: "menu.pizzaTax")
        } else if menu.taxes[menu.pizzaTax] == nil {
            throw ConfigurationError(
                source: file, key: "menu.pizzaTax", problem: "is required once menu.taxes names rates",
                allowed: menu.taxes.keys.sorted().joined(separator: ", "))
        }
        if let products = mapping["products"] {
            guard let entries = products.mapping else {
                throw ConfigurationSchema.wrongType(file, "menu.products", "a mapping of product id to its entry")
            }
            menu.products = []
            for (idNode, entry) in entries {
                let id = idNode.string ?? ""
                let key = "menu.products.\(id)"
                guard isName(id) else {
                    throw ConfigurationError(
                        source: file, key: key, problem: "is not a valid product id",
                        allowed: "lowercase letters, digits and '-'")
                }
                guard let fields = entry.mapping else {
                    throw ConfigurationSchema.wrongType(file, key, "{name, category, price, tax, options?}")
                }
                for (fieldNode, _) in fields where !productKeys.contains(fieldNode.string ?? "") {
                    throw ConfigurationError(
                        source: file, key: "\(key).\(fieldNode.string ?? "?")", problem: "unknown key",
                        allowed: productKeys.sorted().joined(separator: ", "))
                }
                guard let name = fields["name"]?.string, !name.isEmpty, name.count <= 100 else {
                    throw ConfigurationSchema.wrongType(file, "\(key).name", "the name a customer reads (1-100)")
                }
                guard let category = fields["category"]?.string, isName(category) else {
                    throw ConfigurationSchema.wrongType(file, "\(key).category", "a lowercase name (drinks, sides)")
                }
                guard let priceNode = fields["price"] else {
                    throw ConfigurationSchema.wrongType(file, "\(key).price", "a price in cents")
                }
                var options: [String: Int64] = [:]
                if let optionNodes = fields["options"] {
                    guard let optionMapping = optionNodes.mapping else {
                        throw ConfigurationSchema.wrongType(file, "\(key).options", "a mapping of option to cents")
                    }
                    for (optionNode, optionPrice) in optionMapping {
                        let option = optionNode.string ?? ""
                        guard isName(option) else {
                            throw ConfigurationError(
                                source: file, key: "\(key).options.\(option)", problem: "is not a valid option name",
                                allowed: "lowercase letters, digits and '-'")
                        }
                        options[option] = try price(optionPrice, key: "\(key).options.\(option)", file: file)
                    }
                }
                menu.products.append(
                    MenuProduct(
                        id: id, name: name, category: category,
                        price: try price(priceNode, key: "\(key).price", file: file),
                        tax: try rate(fields["tax"], key: "\(key).tax"), options: options))
            }
        }
        if let fees = mapping["fees"] {
            guard let feeMapping = fees.mapping else {
                throw ConfigurationSchema.wrongType(file, "menu.fees", "{delivery: {amount, tax}}")
            }
            for (kindNode, fee) in feeMapping {
                guard kindNode.string == Fee.delivery else {
                    throw ConfigurationError(
                        source: file, key: "menu.fees.\(kindNode.string ?? "?")", problem: "unknown fee",
                        allowed: Fee.delivery)
                }
                guard let amount = fee.mapping?["amount"] else {
                    throw ConfigurationSchema.wrongType(file, "menu.fees.delivery", "{amount, tax}")
                }
                let tax = try rate(fee.mapping?["tax"], key: "menu.fees.delivery.tax")
                menu.deliveryFee = Fee(
                    kind: Fee.delivery, amount: try price(amount, key: "menu.fees.delivery.amount", file: file),
                    tax: menu.rate(named: tax))
            }
        }
        try checkNamespace(menu, file: file)
        return menu
    }

    /// Kinds, products, extras and categories name one thing each (a printer's `items` and a `menu off` name any).
    private static func checkNamespace(_ menu: Menu, file: String) throws(ConfigurationError) {
        var seen: [String: String] = [:]
        let named =
            menu.kinds.map { ($0.name, "menu.kinds") } + menu.products.map { ($0.id, "menu.products") }
            + menu.extras.keys.sorted().map { ($0, "menu.extras") }
            + Set(menu.products.map(\.category)).sorted().map { ($0, "a category") }
        for (name, place) in named {
            if let first = seen[name] {
                throw ConfigurationError(
                    source: file, key: place == "a category" ? "menu.products" : "\(place).\(name)",
                    problem:
                        "'\(name)' is also in \(first): kinds, products, extras and categories share one namespace",
                    allowed: "a name used once")
            }
            seen[name] = place
        }
    }
}
