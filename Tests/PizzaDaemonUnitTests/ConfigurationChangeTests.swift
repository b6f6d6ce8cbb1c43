import Foundation
import Testing

@testable import PizzaDaemon

/// The reload's verdict, key by key: each key of the schema changed alone is reported once, as applied or as needing
/// a restart exactly as its schema entry says, so that no key can be forgotten by the reload.
@Suite("ConfigurationChange: what a reload says, for every key")
struct ConfigurationChangeTests {
    /// A configuration with shipping on, so that every replication key may change on its own.
    static let base: [String: String] = [
        "replication.shopId": "porto", "replication.postgres.host": "192.0.2.10",
        "replication.postgres.database": "pizzad", "replication.postgres.user": "shop_porto",
        "menu.taxes": "{none: 0, food: 700}",
    ]

    /// A good value for each key other than its default and `base`'s. A key with none here fails the test: a new key
    /// needs a sample.
    static func sample(for key: ConfigurationKey, certificate: String) -> String? {
        if case .integer = key.kind, let value = key.defaultValue.flatMap({ Int($0) }) { return String(value + 1) }
        let samples: [String: String] = [
            "database.path": "/srv/pizzad/other.sqlite", "database.migrations": "/srv/pizzad/migrations",
            "database.synchronous": "EXTRA", "database.checkpoints": "external",
            "socket.path": "/srv/pizzad/other.sock",
            "socket.mode": "\"0600\"", "socket.group": "kitchen", "metrics.listen": "127.0.0.1:9464",
            "board.listen": "127.0.0.1:9465", "board.showCustomer": "false", "log.level": "debug",
            "access.operators": "[alice]", "access.readers": "[bob, \"@kitchen\"]", "replication.shopId": "lisboa",
            "replication.postgres.host": "192.0.2.11", "replication.postgres.database": "central",
            "replication.postgres.user": "shop_lisboa", "replication.postgres.passwordFile": "/srv/pizzad/pgpassword",
            "replication.postgres.tls": "require", "replication.postgres.caFile": certificate,
            "menu.currency": "USD", "menu.crusts": "[classic, thin, stuffed, pan]", "menu.extras": "{olives: 90}",
            "menu.kinds": "{calzone: {prices: {M: 1000}, size: M}}",
            "menu.products": "{cola-033: {name: Cola, category: drinks, price: 250, tax: none}}",
            "menu.taxes": "{none: 0, food: 700, drinks: 1900}", "menu.pizzaTax": "food",
            "menu.fees": "{delivery: {amount: 250, tax: none}}", "api.listen": "127.0.0.1:8443",
            "api.tls.certificate": certificate,
            "api.tls.key": certificate.replacingOccurrences(of: ".pem", with: ".key"),
            "printers": "[{name: kitchen, address: \"192.0.2.50:9100\"}]",
            "webhooks": "[{name: shop, url: \"https://shop.example.com/hook\", secretFile: "
                + certificate.replacingOccurrences(of: "ca.pem", with: "webhook.secret") + "}]",
            "outbox.retryScale": "0.5",
        ]
        return samples[key.path]
    }

    /// `values` as YAML, each dotted key nested in its sections.
    static func yaml(_ values: [String: String]) -> String {
        var lines: [String] = []
        var open: [Substring] = []
        for (path, value) in values.sorted(by: { $0.key < $1.key }) {
            let parts = path.split(separator: ".")
            let sections = Array(parts.dropLast())
            let shared = zip(open, sections).prefix { $0 == $1 }.count
            for (depth, section) in sections.enumerated().dropFirst(shared) {
                lines.append(String(repeating: "  ", count: depth) + section + ":")
            }
            open = sections
            lines.append(String(repeating: "  ", count: sections.count) + "\(parts.last!): \(value)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func load(_ values: [String: String], in folder: String) async throws -> DaemonConfiguration {
        let path = folder + "/pizzad-\(UUID().uuidString).yaml"
        try Data(Self.yaml(values).utf8).write(to: URL(fileURLWithPath: path))
        return try await ConfigurationLoader(flags: .init(config: path), environment: [:]).load()
    }

    @Test("each key changed alone is reported once, applied or needing a restart as the schema says")
    func everyKey() async throws {
        let folder = NSTemporaryDirectory() + "pizzad-reload-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["ca", "api"] {
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
                "/CN=\(name)",
                "-days", "1", "-keyout", folder + "/\(name).key", "-out", folder + "/\(name).pem",
            ]
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
        }
        let certificate = folder + "/ca.pem"
        try Data("whsec_\(Data(repeating: 1, count: 32).base64EncodedString())\n".utf8).write(
            to: URL(fileURLWithPath: folder + "/webhook.secret"))
        // The order API's certificate and key are set together: the base has one pair, each key's sample the other.
        var base = Self.base
        base["api.tls.certificate"] = folder + "/api.pem"
        base["api.tls.key"] = folder + "/api.key"
        let before = try await load(base, in: folder)
        #expect(ConfigurationChange(from: before, to: before) == ConfigurationChange(from: before, to: before))
        #expect(ConfigurationChange(from: before, to: before).applied.isEmpty)
        #expect(ConfigurationChange(from: before, to: before).needsRestart.isEmpty)
        for key in ConfigurationSchema.keys {
            guard let sample = Self.sample(for: key, certificate: certificate) else {
                Issue.record("\(key.path) has no sample value here: add one")
                continue
            }
            var values = base
            values[key.path] = sample
            let after: DaemonConfiguration
            do {
                after = try await load(values, in: folder)
            } catch {
                Issue.record("\(key.path) = \(sample) is refused: \(error)")
                continue
            }
            let change = ConfigurationChange(from: before, to: after)
            let expected = key.applied == .onReload ? change.applied : change.needsRestart
            let other = key.applied == .onReload ? change.needsRestart : change.applied
            #expect(expected == [key], "\(key.path): \(change)")
            #expect(other.isEmpty, "\(key.path): \(change)")
        }
    }

    @Test("a key written out at its default is no change; the log names keys by path, or nothing")
    func defaultsAreNoChange() async throws {
        let folder = NSTemporaryDirectory() + "pizzad-reload-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try await load([:], in: folder)
        let after = try await load(["socket.maxConnections": "1024", "log.level": "info"], in: folder)
        #expect(ConfigurationChange(from: before, to: after) == ConfigurationChange(from: before, to: before))
        #expect(ConfigurationChange.describe([]) == "nothing")
        #expect(ConfigurationChange.describe([.logLevel, .socketPath]) == "log.level, socket.path")
    }
}
