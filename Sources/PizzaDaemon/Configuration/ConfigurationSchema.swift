import Logging
import PizzaCore
import PizzaReplication
import Yams

/// The keys `pizzad.yaml` may hold, their types and allowed values. `config/pizzad.yaml` documents each one.
enum ConfigurationSchema {
    enum Kind {
        case text, integer, list
        case section([String: Kind])
        case menu
    }

    static let root: [String: Kind] = [
        "database": .section([
            "path": .text, "migrations": .text, "synchronous": .text, "busyTimeoutMs": .integer,
        ]),
        "socket": .section(["path": .text, "mode": .text, "group": .text, "maxConnections": .integer]),
        "log": .section(["level": .text]),
        "access": .section(["operators": .list, "readers": .list]),
        "shutdown": .section(["graceSeconds": .integer]),
        "metrics": .section(["listen": .text]),
        "replication": .section([
            "shopId": .text, "batchSize": .integer, "timeoutSeconds": .integer,
            "postgres": .section([
                "host": .text, "port": .integer, "database": .text, "user": .text, "passwordFile": .text, "tls": .text,
                "caFile": .text,
            ]),
        ]),
        "menu": .menu,
    ]

    /// A whole-number setting's range, and what it counts (for the allowed values in words).
    struct IntegerRange {
        var range: ClosedRange<Int>
        var noun: String
        var description: String { "\(noun) from \(range.lowerBound) to \(range.upperBound)" }
    }

    /// Every whole-number setting's range: the loader checks these and the errors quote them.
    static let integers: [String: IntegerRange] = [
        "database.busyTimeoutMs": IntegerRange(range: 0...600_000, noun: "a whole number of milliseconds"),
        "socket.maxConnections": IntegerRange(range: 1...100_000, noun: "a whole number"),
        "shutdown.graceSeconds": IntegerRange(range: 0...300, noun: "a whole number of seconds"),
        "replication.batchSize": IntegerRange(range: 1...10_000, noun: "a whole number of audit entries"),
        "replication.timeoutSeconds": IntegerRange(range: 1...600, noun: "a whole number of seconds"),
        "replication.postgres.port": IntegerRange(range: 1...65535, noun: "a TCP port"),
    ]

    /// The permission bits `socket.mode` may give.
    static let socketModes: ClosedRange<UInt32> = 0o600...0o777

    /// What `key` accepts, in words.
    static func allowed(for key: String) -> String {
        if let integer = integers[key] { return integer.description }
        return switch key {
        case "database.synchronous": "FULL, EXTRA (lower levels can lose acknowledged orders on power loss)"
        case "socket.mode":
            "octal permission bits such as 0660 (from 0\(String(socketModes.lowerBound, radix: 8)) to "
                + "0\(String(socketModes.upperBound, radix: 8)))"
        case "metrics.listen":
            "HOST:PORT with an IP address or localhost, e.g. 127.0.0.1:9464 or [::1]:9464 (port 0: any free one)"
        case "replication.shopId": "lowercase letters, digits, '-' and '_', at most 63, starting with a letter or digit"
        case "replication.postgres.tls":
            ReplicationConfiguration.TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
        case "replication.postgres.caFile": "a readable file holding PEM certificates"
        case "replication.postgres.host", "replication.postgres.database", "replication.postgres.user":
            "set together: host, database and user (and replication.shopId) turn shipping on"
        case "log.level": Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
        case "access.operators", "access.readers": "a list of user names and @group names"
        default: "see config/pizzad.yaml"
        }
    }

    /// `log.level` → `LOG_LEVEL`, `database.busyTimeoutMs` → `DATABASE_BUSY_TIMEOUT_MS`.
    static func environmentName(of key: String) -> String {
        var name = ""
        for character in key {
            if character == "." {
                name += "_"
            } else if character.isUppercase {
                name += "_" + String(character)
            } else {
                name += character.uppercased()
            }
        }
        return name
    }

    static func parseMode(_ text: String) -> UInt32? {
        guard (3...4).contains(text.count), let mode = UInt32(text, radix: 8), socketModes.contains(mode) else {
            return nil
        }
        return mode
    }

    static func isPrincipal(_ name: String) -> Bool {
        let bare = name.hasPrefix("@") ? name.dropFirst() : Substring(name)
        return !bare.isEmpty && bare.count <= 64
            && bare.allSatisfy { $0.isLetter || $0.isNumber || "._-$".contains($0) }
    }

    // MARK: Checking the file

    static func validate(_ root: Node, file: String) throws(ConfigurationError) {
        if root.isNullScalar { return }
        guard let mapping = root.mapping else {
            throw ConfigurationError(
                source: file, key: "", problem: "the top level must be a mapping of sections",
                allowed: sorted(Self.root))
        }
        try validate(mapping, schema: Self.root, path: "", file: file)
    }

    private static func sorted(_ schema: [String: Kind]) -> String { schema.keys.sorted().joined(separator: ", ") }

    private static func validate(_ mapping: Node.Mapping, schema: [String: Kind], path: String, file: String)
        throws(ConfigurationError)
    {
        for (keyNode, value) in mapping {
            let name = keyNode.string ?? "?"
            let key = path.isEmpty ? name : "\(path).\(name)"
            guard let kind = schema[name] else {
                throw ConfigurationError(source: file, key: key, problem: "unknown key", allowed: sorted(schema))
            }
            if value.isNullScalar { continue }
            switch kind {
            case .text:
                guard value.scalar != nil else { throw wrongType(file, key, "a single value") }
            case .integer:
                guard value.scalar != nil, Int(value.string ?? "") != nil else {
                    throw ConfigurationError(
                        source: file, key: key, problem: "'\(value.string ?? "…")' is not a whole number",
                        allowed: allowed(for: key))
                }
            case .list:
                guard let sequence = value.sequence, sequence.allSatisfy({ $0.scalar != nil }) else {
                    throw wrongType(file, key, "a list of names, e.g. [alice, \"@kitchen\"]")
                }
            case .section(let inner):
                guard let innerMapping = value.mapping else {
                    throw wrongType(file, key, "a mapping with keys \(sorted(inner))")
                }
                try validate(innerMapping, schema: inner, path: key, file: file)
            case .menu:
                guard value.mapping != nil else { throw wrongType(file, key, "a mapping (see config/pizzad.yaml)") }
                _ = try menu(from: .mapping(Node.Mapping([(keyNode, value)])), file: file)
            }
        }
    }

    private static func wrongType(_ file: String, _ key: String, _ expected: String) -> ConfigurationError {
        ConfigurationError(source: file, key: key, problem: "has the wrong type", allowed: expected)
    }

    // MARK: The menu

    static let menuKeys: [String: Kind] = ["currency": .text, "crusts": .list, "extras": .menu, "kinds": .menu]
    static let kindKeys: Set<String> = ["prices", "size", "crust", "chiliSauce", "ketchup", "extras"]

    /// The menu section of the file, each part defaulting to the built-in menu's.
    static func menu(from root: Node, file: String) throws(ConfigurationError) -> Menu {
        guard let section = root.mapping?["menu"], !section.isNullScalar else { return .standard }
        guard let mapping = section.mapping else { throw wrongType(file, "menu", "a mapping") }
        var menu = Menu.standard
        for (keyNode, _) in mapping where menuKeys[keyNode.string ?? ""] == nil {
            throw ConfigurationError(
                source: file, key: "menu.\(keyNode.string ?? "?")", problem: "unknown key",
                allowed: menuKeys.keys.sorted().joined(separator: ", "))
        }
        if let currency = mapping["currency"]?.string {
            guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw ConfigurationError(
                    source: file, key: "menu.currency", problem: "'\(currency)' is not allowed",
                    allowed: "a three-letter ISO 4217 code such as EUR")
            }
            menu.currency = currency
        }
        if let crusts = mapping["crusts"] {
            guard let list = crusts.sequence?.compactMap(\.string), !list.isEmpty, list.allSatisfy(isName) else {
                throw wrongType(file, "menu.crusts", "a non-empty list of lowercase names")
            }
            menu.crusts = list
        }
        if let extras = mapping["extras"] {
            guard let extrasMapping = extras.mapping else {
                throw wrongType(file, "menu.extras", "a mapping of name: price in cents")
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
                throw wrongType(file, "menu.kinds", "a mapping of kind name to its prices and defaults")
            }
            menu.kinds = []
            for (nameNode, definition) in kindsMapping {
                menu.kinds.append(try kind(nameNode.string ?? "", definition, menu: menu, file: file))
            }
        }
        return menu
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
            throw wrongType(file, key, "a mapping with \(kindKeys.sorted().joined(separator: ", "))")
        }
        for (fieldNode, _) in mapping where !kindKeys.contains(fieldNode.string ?? "") {
            throw ConfigurationError(
                source: file, key: "\(key).\(fieldNode.string ?? "?")", problem: "unknown key",
                allowed: kindKeys.sorted().joined(separator: ", "))
        }
        guard let pricesMapping = mapping["prices"]?.mapping, pricesMapping.count > 0 else {
            throw wrongType(file, "\(key).prices", "a mapping of size (S, M, L, XL) to price in cents")
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
                throw wrongType(file, "\(key).extras", "a list of extras")
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

    private static func price(_ node: Node, key: String, file: String) throws(ConfigurationError) -> Int64 {
        guard let text = node.string, let value = Int64(text), (0...10_000_000).contains(value) else {
            throw ConfigurationError(
                source: file, key: key, problem: "'\(node.string ?? "…")' is not a price",
                allowed: "a whole number of cents from 0 to 10000000")
        }
        return value
    }

    private static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 40
            && name.allSatisfy { ($0.isLowercase && $0.isASCII) || $0.isNumber || $0 == "-" }
    }
}

extension Node {
    var isNullScalar: Bool {
        guard case .scalar(let scalar) = self else { return false }
        return scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }
}
