import Foundation
import PizzaCore
import PizzaOutbox
import Yams

/// `printers:` and `webhooks:` (CONTRACT section 16), read with Yams beside swift-configuration (whose YAML provider
/// refuses lists of mappings), each entry checked field by field; an error names the entry (`printers[2].address`).
enum OutboxConfiguration {
    static let printerFields = ["name", "address", "columns", "items", "kinds", "events", "reports"]
    static let webhookFields = ["name", "url", "secretFile", "events", "allowPrivate"]

    /// Both lists and the `outbox.*` keys; `menu` is what `kinds` must name.
    static func settings(
        reading values: ConfigurationValues, tree: Node?, file: String, menu: Menu
    ) throws(ConfigurationError) -> OutboxSettings {
        var settings = OutboxSettings()
        if let node = tree?.mapping?[ConfigurationKey.printers.path] {
            settings.printers = try entries(node, key: .printers, file: file, menu: menu).printers
        }
        if let node = tree?.mapping?[ConfigurationKey.webhooks.path] {
            settings.webhooks = try entries(node, key: .webhooks, file: file, menu: menu).webhooks
        }
        var seen: Set<String> = []
        for (list, name) in settings.printers.map({ ("printers", $0.name) })
            + settings.webhooks.map({ ("webhooks", $0.name) })
        {
            guard seen.insert(name).inserted else {
                throw ConfigurationError(
                    source: file, key: list, problem: "names '\(name)' twice",
                    allowed: "a name used once across printers and webhooks")
            }
        }
        settings.retryScale = try values.defaulted(.outboxRetryScale) { text in
            Double(text).flatMap { (0.0001...10).contains($0) ? $0 : nil }
        }
        settings.printerLimitMinutes = try values.integer(.outboxPrinterLimitMinutes)
        settings.webhookTimeoutSeconds = try values.integer(.outboxWebhookTimeoutSeconds)
        return settings
    }

    /// The entries of `node`, the value of `printers` or `webhooks`.
    static func entries(
        _ node: Node, key: ConfigurationKey, file: String, menu: Menu?
    ) throws(ConfigurationError) -> (printers: [PrinterSettings], webhooks: [WebhookSettings]) {
        if node.isNullScalar { return ([], []) }
        guard let list = node.sequence else { throw ConfigurationSchema.wrongType(file, key.path, key.allowed) }
        var printers: [PrinterSettings] = []
        var webhooks: [WebhookSettings] = []
        for (index, item) in list.enumerated() {
            let path = "\(key.path)[\(index)]"
            guard let mapping = item.mapping else { throw ConfigurationSchema.wrongType(file, path, key.allowed) }
            let entry = Entry(mapping: mapping, path: path, file: file)
            if key == .printers {
                try entry.onlyKnown(printerFields)
                printers.append(try printer(entry, menu: menu))
            } else {
                try entry.onlyKnown(webhookFields)
                webhooks.append(try webhook(entry))
            }
        }
        return (printers, webhooks)
    }

    private static func printer(_ entry: Entry, menu: Menu?) throws(ConfigurationError) -> PrinterSettings {
        let address = try entry.required("address", "HOST:PORT, e.g. 192.168.1.50:9100")
        guard let listen = ListenAddress(parsing: address) else {
            throw entry.error("address", "'\(address)' is not HOST:PORT", "HOST:PORT, e.g. 192.168.1.50:9100")
        }
        var printer = PrinterSettings(name: try entry.name(), host: listen.host, port: listen.port)
        if let columns = entry["columns"] {
            guard let count = Int(columns.string ?? ""), [32, 42, 48].contains(count) else {
                throw entry.error("columns", "'\(columns.string ?? "…")' is not allowed", "32, 42 or 48")
            }
            printer.columns = count
        }
        if entry["kinds"] != nil, entry["items"] != nil {
            throw entry.error("items", "items and kinds are both given", "items (kinds is its older name), not both")
        }
        // `items` names kinds, products or categories (CONTRACT section 17); `kinds`, its older name, the same.
        for field in ["items", "kinds"] where entry[field] != nil {
            let names = try entry.names(field, "a list of the menu's kinds, products or categories")
            if let menu {
                let known =
                    menu.kinds.map(\.name) + menu.products.map(\.id) + Set(menu.products.map(\.category)).sorted()
                if let unknown = names.first(where: { !known.contains($0) }) {
                    throw entry.error(field, "'\(unknown)' is not on the menu", known.joined(separator: ", "))
                }
            }
            printer.kinds = Set(names)
        }
        if let events = try entry.events() { printer.events = events }
        switch entry["reports"]?.string?.lowercased() {
        case nil, "false": break
        case "true": printer.reports = true
        case let other?: throw entry.error("reports", "'\(other)' is not allowed", "true or false")
        }
        if printer.events.isEmpty, !printer.reports {
            throw entry.error(
                "events", "is empty, and reports is not true: the printer would print nothing",
                "a list of events, or reports: true")
        }
        return printer
    }

    private static func webhook(_ entry: Entry) throws(ConfigurationError) -> WebhookSettings {
        let name = try entry.name()
        let url = try entry.required("url", "an https:// URL")
        let allowPrivate: Bool
        switch entry["allowPrivate"]?.string?.lowercased() {
        case nil, "false": allowPrivate = false
        case "true": allowPrivate = true
        case let other?: throw entry.error("allowPrivate", "'\(other)' is not allowed", "true or false")
        }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "https" || (scheme == "http" && allowPrivate), parts.host?.isEmpty == false
        else {
            throw entry.error(
                "url", "'\(url)' is not an https:// URL",
                "an https:// URL (http:// only with allowPrivate: true, for a receiver on this machine or network)")
        }
        guard entry["secretFile"] != nil else {
            throw entry.error("secretFile", "is missing: a webhook is signed", "a file with one whsec_ secret per line")
        }
        let secretFile = try entry.required("secretFile", "a file with one whsec_ secret per line")
        guard let data = FileManager.default.contents(atPath: secretFile) else {
            throw entry.error(
                "secretFile", "\(secretFile) cannot be read (check that it exists and pizzad may read it)",
                "a file with one whsec_ secret per line")
        }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        var secrets: [[UInt8]] = []
        for line in lines {
            guard let key = WebhookSettings.secretKey(fromLine: line) else {
                throw entry.error(
                    "secretFile", "\(secretFile) holds a line that is not a whsec_ secret",
                    "whsec_ and the base64 of at least 24 random bytes, one per line")
            }
            secrets.append(key)
        }
        guard (1...2).contains(secrets.count) else {
            throw entry.error(
                "secretFile", "\(secretFile) holds \(secrets.count) secrets",
                "one whsec_ secret per line, one or two (two while rotating)")
        }
        var webhook = WebhookSettings(
            name: name, url: url, secretFile: secretFile, secrets: secrets, allowPrivate: allowPrivate)
        if let events = try entry.events() {
            guard !events.isEmpty else {
                throw entry.error("events", "is empty: the webhook would be sent nothing", "a list of events")
            }
            webhook.events = events
        }
        if !allowPrivate, let host = parts.host, WebhookSettings.isPrivateLiteral(host) {
            throw entry.error(
                "url", "\(host) is a private address", "a public address, or set allowPrivate: true")
        }
        return webhook
    }

    /// One entry of a list, with its path for errors.
    struct Entry {
        var mapping: Node.Mapping
        var path: String
        var file: String

        subscript(field: String) -> Node? {
            guard let value = mapping[field], !value.isNullScalar else { return nil }
            return value
        }

        func error(_ field: String, _ problem: String, _ allowed: String) -> ConfigurationError {
            ConfigurationError(source: file, key: "\(path).\(field)", problem: problem, allowed: allowed)
        }

        func onlyKnown(_ fields: [String]) throws(ConfigurationError) {
            for (keyNode, _) in mapping where !fields.contains(keyNode.string ?? "") {
                throw error(keyNode.string ?? "?", "unknown key", fields.joined(separator: ", "))
            }
        }

        func required(_ field: String, _ allowed: String) throws(ConfigurationError) -> String {
            guard let value = self[field] else { throw error(field, "is missing", allowed) }
            guard let text = value.scalar?.string, !text.isEmpty else {
                throw error(field, "has the wrong type", allowed)
            }
            return text
        }

        func name() throws(ConfigurationError) -> String {
            let allowed = "1 to 64 letters, digits, '-' or '_'"
            let name = try required("name", allowed)
            guard name.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) })
            else { throw error("name", "'\(name)' is not a valid name", allowed) }
            return name
        }

        func names(_ field: String, _ allowed: String, allowEmpty: Bool = false) throws(ConfigurationError)
            -> [String]
        {
            guard let list = self[field]?.sequence, allowEmpty || !list.isEmpty, list.allSatisfy({ $0.scalar != nil })
            else {
                throw error(field, "has the wrong type", allowed)
            }
            return list.compactMap(\.string)
        }

        func events() throws(ConfigurationError) -> Set<OutboxEvent>? {
            guard self["events"] != nil else { return nil }
            let allowed = OutboxEvent.allCases.map(\.rawValue).joined(separator: ", ")
            var events: Set<OutboxEvent> = []
            // Empty is allowed: a till's printer that prints only reports.
            for name in try names("events", "a list of \(allowed)", allowEmpty: true) {
                guard let event = OutboxEvent(rawValue: name) else {
                    throw error("events", "'\(name)' is not an event", allowed)
                }
                events.insert(event)
            }
            return events
        }
    }
}
