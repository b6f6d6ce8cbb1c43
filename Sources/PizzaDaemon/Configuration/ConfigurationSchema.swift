import PizzaCore
import Yams

/// The keys `pizzad.yaml` may hold (``keys``), and the check of a file against them: any unknown key, wrong type or
/// bad value is one ``ConfigurationError`` naming the file, the key and what is allowed.
enum ConfigurationSchema {
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

    /// The permission bits `socket.mode` may give.
    static let socketModes: ClosedRange<UInt32> = 0o600...0o777

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
                allowed: children(of: ""))
        }
        try validate(mapping, path: "", file: file)
    }

    /// The names one level below `path`, as an error lists them.
    static func children(of path: String) -> String {
        let prefix = path.isEmpty ? "" : path + "."
        var names: [String] = []
        for key in keys where key.path.hasPrefix(prefix) {
            let name = String(key.path.dropFirst(prefix.count).prefix { $0 != "." })
            if !names.contains(name) { names.append(name) }
        }
        return names.sorted().joined(separator: ", ")
    }

    private static func isSection(_ path: String) -> Bool { keys.contains { $0.path.hasPrefix(path + ".") } }

    private static func validate(_ mapping: Node.Mapping, path: String, file: String) throws(ConfigurationError) {
        for (keyNode, value) in mapping {
            let name = keyNode.string ?? "?"
            let key = path.isEmpty ? name : "\(path).\(name)"
            if key == "menu" {
                // The menu's own parser checks it whole (kinds refer to crusts and extras).
                guard value.isNullScalar || value.mapping != nil else { throw wrongType(file, key, "a mapping") }
                _ = try MenuConfiguration.menu(from: .mapping(Node.Mapping([(keyNode, value)])), file: file)
                continue
            }
            guard let entry = self.key(key) else {
                guard isSection(key) else {
                    throw ConfigurationError(
                        source: file, key: key, problem: "unknown key", allowed: children(of: path))
                }
                if value.isNullScalar { continue }
                guard let inner = value.mapping else {
                    throw wrongType(file, key, "a mapping with keys \(children(of: key))")
                }
                try validate(inner, path: key, file: file)
                continue
            }
            if value.isNullScalar { continue }
            switch entry.kind {
            case .text:
                guard value.scalar != nil else { throw wrongType(file, key, "a single value") }
            case .menu:
                continue  // never reached: the whole menu section is checked above
            case .entries:
                _ = try OutboxConfiguration.entries(value, key: entry, file: file, menu: nil)
            case .integer:
                guard value.scalar != nil, Int(value.string ?? "") != nil else {
                    throw ConfigurationError(
                        source: file, key: key, problem: "'\(value.string ?? "…")' is not a whole number",
                        allowed: entry.allowedDescription)
                }
            case .list:
                guard let sequence = value.sequence, sequence.allSatisfy({ $0.scalar != nil }) else {
                    throw wrongType(file, key, "a list of names, e.g. [alice, \"@kitchen\"]")
                }
            }
        }
    }

    static func wrongType(_ file: String, _ key: String, _ expected: String) -> ConfigurationError {
        ConfigurationError(source: file, key: key, problem: "has the wrong type", allowed: expected)
    }
}

extension Node {
    var isNullScalar: Bool {
        guard case .scalar(let scalar) = self else { return false }
        return scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }
}
