import PizzaCore
import Yams

/// The `menu` section of `pizzad.yaml`, read into a ``Menu``; each part defaults to the built-in menu's.
enum MenuConfiguration {
    static let kindKeys: Set<String> = ["prices", "size", "crust", "chiliSauce", "ketchup", "extras"]

    /// The menu section of the file, each part defaulting to the built-in menu's.
    static func menu(from root: Node, file: String) throws(ConfigurationError) -> Menu {
        guard let section = root.mapping?["menu"], !section.isNullScalar else { return .standard }
        guard let mapping = section.mapping else { throw ConfigurationSchema.wrongType(file, "menu", "a mapping") }
        var menu = Menu.standard
        for (keyNode, _) in mapping where ConfigurationSchema.key("menu.\(keyNode.string ?? "")") == nil {
            throw ConfigurationError(
                source: file, key: "menu.\(keyNode.string ?? "?")", problem: "unknown key",
                allowed: ConfigurationSchema.children(of: "menu"))
        }
        if let currency = mapping["currency"]?.string {
            guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw ConfigurationError(
                    source: file, key: ConfigurationKey.menuCurrency.path, problem: "'\(currency)' is not allowed",
                    allowed: "a three-letter ISO 4217 code such as EUR")
            }
            menu.currency = currency
        }
        if let crusts = mapping["crusts"] {
            guard let list = crusts.sequence?.compactMap(\.string), !list.isEmpty, list.allSatisfy(isName) else {
                throw ConfigurationSchema.wrongType(
                    file, ConfigurationKey.menuCrusts.path, "a non-empty list of lowercase names")
            }
            menu.crusts = list
        }
        if let extras = mapping["extras"] {
            guard let extrasMapping = extras.mapping else {
                throw ConfigurationSchema.wrongType(
                    file, ConfigurationKey.menuExtras.path, "a mapping of name: price in cents")
            }
            var prices: [String: Int64] = [:]
            for (nameNode, priceNode) in extrasMapping {
                let name = nameNode.string ?? ""
                let key = "menu.extras.\(name)"
                guard isName(name) else {
                    throw ConfigurationError(
                        source: file, key: key, problem: "is not a valid name",
                        allowed: "lowercase letters, digits and '-'")
                }
                prices[name] = try price(priceNode, key: key, file: file)
            }
            menu.extras = prices
        }
        if let kinds = mapping["kinds"] {
            guard let kindsMapping = kinds.mapping, kindsMapping.count > 0 else {
                throw ConfigurationSchema.wrongType(
                    file, ConfigurationKey.menuKinds.path, "a mapping of kind name to its prices and defaults")
            }
            menu.kinds = []
            for (nameNode, definition) in kindsMapping {
                menu.kinds.append(try kind(nameNode.string ?? "", definition, menu: menu, file: file))
            }
        }
        return try whole(menu, from: mapping, file: file)
    }

    private static func kind(_ name: String, _ node: Node, menu: Menu, file: String) throws(ConfigurationError)
        -> PizzaKind
    {
        let key = "menu.kinds.\(name)"
        guard isName(name) else {
            throw ConfigurationError(
                source: file, key: key, problem: "is not a valid kind name",
                allowed: "lowercase letters, digits and '-'")
        }
        guard let mapping = node.mapping else {
            throw ConfigurationSchema.wrongType(
                file, key, "a mapping with \(kindKeys.sorted().joined(separator: ", "))")
        }
        for (fieldNode, _) in mapping where !kindKeys.contains(fieldNode.string ?? "") {
            throw ConfigurationError(
                source: file, key: "\(key).\(fieldNode.string ?? "?")", problem: "unknown key",
                allowed: kindKeys.sorted().joined(separator: ", "))
        }
        guard let pricesMapping = mapping["prices"]?.mapping, pricesMapping.count > 0 else {
            throw ConfigurationSchema.wrongType(
                file, "\(key).prices", "a mapping of size (S, M, L, XL) to price in cents")
        }
        var prices: [Size: Int64] = [:]
        for (sizeNode, priceNode) in pricesMapping {
            guard let size = Size(rawValue: sizeNode.string ?? "") else {
                throw ConfigurationError(
                    source: file, key: "\(key).prices.\(sizeNode.string ?? "?")", problem: "unknown size",
                    allowed: Size.allCases.map(\.rawValue).joined(separator: ", "))
            }
            prices[size] = try price(priceNode, key: "\(key).prices.\(size.rawValue)", file: file)
        }
        var kind = PizzaKind(
            name: name, prices: prices, defaultSize: prices[.medium] != nil ? .medium : prices.keys.sorted()[0],
            defaultCrust: menu.crusts[0])
        if let size = mapping["size"]?.string {
            guard let parsed = Size(rawValue: size), prices[parsed] != nil else {
                throw ConfigurationError(
                    source: file, key: "\(key).size", problem: "'\(size)' has no price",
                    allowed: kind.sizes.map(\.rawValue).joined(separator: ", "))
            }
            kind.defaultSize = parsed
        }
        if let crust = mapping["crust"]?.string {
            guard menu.crusts.contains(crust) else {
                throw ConfigurationError(
                    source: file, key: "\(key).crust", problem: "'\(crust)' is not on the menu",
                    allowed: menu.crusts.joined(separator: ", "))
            }
            kind.defaultCrust = crust
        }
        for flag in ["chiliSauce", "ketchup"] {
            guard let node = mapping[Node(flag)] else { continue }
            guard let value = node.bool else {
                throw ConfigurationError(
                    source: file, key: "\(key).\(flag)", problem: "'\(node.string ?? "…")' is not allowed",
                    allowed: "true, false")
            }
            if flag == "chiliSauce" { kind.chiliSauce = value } else { kind.ketchup = value }
        }
        if let extras = mapping["extras"] {
            guard let list = extras.sequence?.compactMap(\.string) else {
                throw ConfigurationSchema.wrongType(file, "\(key).extras", "a list of extras")
            }
            for extra in list where menu.extras[extra] == nil {
                throw ConfigurationError(
                    source: file, key: "\(key).extras", problem: "'\(extra)' is not on the menu",
                    allowed: menu.extras.keys.sorted().joined(separator: ", "))
            }
            kind.extras = list
        }
        return kind
    }

    static func price(_ node: Node, key: String, file: String) throws(ConfigurationError) -> Int64 {
        guard let text = node.string, let value = Int64(text), (0...10_000_000).contains(value) else {
            throw ConfigurationError(
                source: file, key: key, problem: "'\(node.string ?? "…")' is not a price",
                allowed: "a whole number of cents from 0 to 10000000")
        }
        return value
    }

    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 40
            && name.allSatisfy { ($0.isLowercase && $0.isASCII) || $0.isNumber || $0 == "-" }
    }
}
