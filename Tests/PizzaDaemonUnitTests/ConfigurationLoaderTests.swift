import Foundation
import PizzaDaemon
import PizzaReplication
import Testing

/// `ConfigurationLoader` on its own: files, environment and flags, without starting a daemon.
@Suite("ConfigurationLoader")
struct ConfigurationLoaderTests {
    /// A configuration file with `yaml`, removed afterwards.
    final class File {
        let path = NSTemporaryDirectory() + "pizzad-config-" + UUID().uuidString + ".yaml"
        init(_ yaml: String) { _ = FileManager.default.createFile(atPath: path, contents: Data(yaml.utf8)) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    func load(
        _ file: File, flags: ConfigurationLoader.Flags = .init(), environment: [String: String] = [:]
    ) async throws -> DaemonConfiguration {
        var flags = flags
        flags.config = file.path
        return try await ConfigurationLoader(flags: flags, environment: environment).load()
    }

    func refusal(_ file: File, environment: [String: String] = [:]) async -> ConfigurationError? {
        do {
            _ = try await load(file, environment: environment)
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test("flags over PIZZAD_* variables over the file over the built-in defaults")
    func precedence() async throws {
        let file = File("log:\n  level: warning\nsocket:\n  maxConnections: 50\n")
        let environment = ["PIZZAD_LOG_LEVEL": "error"]
        #expect(try await load(file, flags: .init(logLevel: "debug"), environment: environment).logLevel == .debug)
        #expect(try await load(file, environment: environment).logLevel == .error)
        let fromFile = try await load(file)
        #expect(fromFile.logLevel == .warning && fromFile.maxConnections == 50)
        let defaults = try await load(File(""))
        #expect(defaults.logLevel == .info && defaults.maxConnections == 1024 && defaults.socketMode == 0o660)
        #expect(defaults.shutdownGraceSeconds == 10 && defaults.busyTimeoutMilliseconds == 5000)
        #expect(defaults.replication == nil && defaults.metricsListen == nil)
    }

    @Test(
        "every whole-number setting takes its bounds and refuses one past them, naming the key, the source and the range",
        arguments: [
            ("database.busyTimeoutMs", "PIZZAD_DATABASE_BUSY_TIMEOUT_MS", 0, 600_000, "milliseconds"),
            ("socket.maxConnections", "PIZZAD_SOCKET_MAX_CONNECTIONS", 1, 100_000, "a whole number from"),
            ("shutdown.graceSeconds", "PIZZAD_SHUTDOWN_GRACE_SECONDS", 0, 300, "seconds"),
        ])
    func ranges(key: String, variable: String, lowest: Int, highest: Int, words: String) async throws {
        let file = File("")
        for good in [lowest, highest] {
            #expect(await refusal(file, environment: [variable: String(good)]) == nil, "\(key) = \(good)")
        }
        for bad in [String(lowest - 1), String(highest + 1), "many"] {
            let error = try #require(await refusal(file, environment: [variable: bad]), "\(key) = \(bad)")
            #expect(error.key == key && error.source == "environment \(variable)", "\(error)")
            #expect(error.allowed?.contains("from \(lowest) to \(highest)") == true, "\(error)")
            #expect(error.allowed?.contains(words) == true, "\(error)")
        }
    }

    @Test(
        "replication's whole-number settings take their bounds and refuse one past them, naming the key, the source and the range",
        arguments: [
            ("replication.batchSize", "PIZZAD_REPLICATION_BATCH_SIZE", 1, 10_000, 500, "audit entries"),
            ("replication.timeoutSeconds", "PIZZAD_REPLICATION_TIMEOUT_SECONDS", 1, 600, 30, "seconds"),
            ("replication.idleCheckSeconds", "PIZZAD_REPLICATION_IDLE_CHECK_SECONDS", 1, 3_600, 5, "seconds"),
            ("replication.postgres.port", "PIZZAD_REPLICATION_POSTGRES_PORT", 1, 65_535, 5_432, "a TCP port"),
        ])
    func replicationRanges(
        key: String, variable: String, lowest: Int, highest: Int, byDefault: Int, words: String
    ) async throws {
        let file = File(
            "replication:\n  shopId: porto\n  postgres:\n    host: 192.0.2.10\n    database: pizzad\n"
                + "    user: shop_porto\n")
        func value(_ replication: ReplicationConfiguration?) -> Int? {
            switch key {
            case "replication.batchSize": replication?.batchSize
            case "replication.timeoutSeconds": replication?.timeoutSeconds
            case "replication.idleCheckSeconds": replication?.idleCheckSeconds
            default: replication?.port
            }
        }
        #expect(value(try await load(file).replication) == byDefault, "\(key) by default")
        for good in [lowest, highest] {
            let replication = try await load(file, environment: [variable: String(good)]).replication
            #expect(value(replication) == good, "\(key) = \(good)")
        }
        for bad in [String(lowest - 1), String(highest + 1), "soon"] {
            let error = try #require(await refusal(file, environment: [variable: bad]), "\(key) = \(bad)")
            #expect(error.key == key && error.source == "environment \(variable)", "\(error)")
            #expect(error.allowed?.contains("from \(lowest) to \(highest)") == true, "\(error)")
            #expect(error.allowed?.contains(words) == true, "\(error)")
        }
    }

    @Test("an unknown key, a wrong type and a bad value in the file name the file, the key and what is allowed")
    func fileErrors() async throws {
        let unknown = File("socket:\n  pth: /run/x.sock\n")
        let error = try #require(await refusal(unknown))
        #expect(error.source == unknown.path && error.key == "socket.pth" && error.problem == "unknown key")
        #expect(error.allowed?.contains("path") == true, "\(error)")
        let mode = File("socket:\n  mode: \"0777777\"\n")
        #expect(try #require(await refusal(mode)).key == "socket.mode")
        let level = File("log:\n  level: loud\n")
        let refused = try #require(await refusal(level))
        #expect(refused.key == "log.level" && refused.allowed?.contains("debug") == true, "\(refused)")
    }

    @Test("a named configuration file that does not exist is an error, not the defaults")
    func missingFile() async {
        let loader = ConfigurationLoader(flags: .init(config: "/nonexistent/pizzad.yaml"), environment: [:])
        await #expect(throws: ConfigurationError.self) { _ = try await loader.load() }
    }
}

/// A printer that prints only reports (CONTRACT section 18), and the lists that would send nothing.
@Suite("Configuration: a printer's reports")
struct PrinterReportsConfigurationTests {
    @Test("events: [] with reports: true is a till's printer; without reports, or for a webhook, it is refused")
    func reportsOnly() async throws {
        let test = ConfigurationLoaderTests()
        let till = ConfigurationLoaderTests.File(
            "printers:\n  - name: till\n    address: 192.0.2.9:9100\n    events: []\n    reports: true\n")
        let printer = try #require(try await test.load(till).outbox.printers.first)
        #expect(printer.events.isEmpty && printer.reports)
        let nothing = ConfigurationLoaderTests.File(
            "printers:\n  - name: till\n    address: 192.0.2.9:9100\n    events: []\n")
        let refused = try #require(await test.refusal(nothing))
        #expect(refused.key == "printers[0].events" && refused.problem.contains("print nothing"), "\(refused)")
        let bad = ConfigurationLoaderTests.File(
            "printers:\n  - name: till\n    address: 192.0.2.9:9100\n    reports: sometimes\n")
        #expect(try #require(await test.refusal(bad)).key == "printers[0].reports")
        let secret = ConfigurationLoaderTests.File(
            "whsec_" + Data(repeating: 7, count: 32).base64EncodedString() + "\n")
        let hook = ConfigurationLoaderTests.File(
            "webhooks:\n  - name: shop\n    url: https://example.com/hook\n    secretFile: \(secret.path)\n    events: []\n"
        )
        let hookRefused = try #require(await test.refusal(hook))
        #expect(hookRefused.key == "webhooks[0].events", "\(hookRefused)")
    }
}
