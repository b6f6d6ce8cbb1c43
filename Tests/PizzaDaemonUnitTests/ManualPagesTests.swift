import Foundation
import Testing

@testable import PizzaDaemon

/// The configuration schema and the pages written from it: every key documented, every default valid.
@Suite("ManualPages and the configuration schema")
struct ManualPagesTests {
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    @Test("pizzad.yaml(5) lists every key with its type, default, allowed values and whether a reload applies it")
    func configurationPage() {
        let page = ManualPages.configuration(date: "November 25, 2026")
        for key in ConfigurationSchema.keys {
            guard let start = page.range(of: ".It Cm \(key.path)\n") else {
                Issue.record("\(key.path) is not in pizzad.yaml(5)")
                continue
            }
            let rest = page[start.upperBound...]
            let end = [rest.range(of: "\n.It "), rest.range(of: "\n.El")].compactMap { $0?.lowerBound }.min()
            let entry = rest[..<(end ?? rest.endIndex)]
            #expect(entry.contains("Type: \(key.typeDescription)."), "\(key.path): \(entry)")
            #expect(entry.contains("Default: \(key.defaultDescription.replacingOccurrences(of: "\\", with: "\\e"))"))
            #expect(
                entry.contains(key.applied == .onReload ? "applied at once" : "needs a restart"),
                "\(key.path): \(entry)")
        }
        #expect(!page.contains("\n\n"), "an empty line in mdoc is a warning in man and lintian")
    }

    @Test("the shipped config/pizzad.yaml names every key of the schema")
    func shippedFileDocumentsEveryKey() throws {
        let shipped = try String(contentsOfFile: Self.repository + "/config/pizzad.yaml", encoding: .utf8)
        for key in ConfigurationSchema.keys {
            let leaf = String(key.path.split(separator: ".").last ?? "")
            #expect(shipped.contains("\(leaf):"), "config/pizzad.yaml does not mention \(key.path)")
        }
    }

    @Test("with no file the defaults are the schema's, each accepted by its own check")
    func defaultsComeFromTheSchema() async throws {
        let configuration = try await ConfigurationLoader(flags: .init(), environment: [:]).load()
        #expect(configuration.busyTimeoutMilliseconds == 5000)
        #expect(configuration.socketMode == 0o660)
        #expect(configuration.maxConnections == 1024)
        #expect(configuration.shutdownGraceSeconds == 10)
        #expect(configuration.logLevel == .info)
        #expect(configuration.metricsListen == nil && configuration.replication == nil)
        for key in ConfigurationSchema.keys {
            if case .integer(let range, _) = key.kind, let value = key.defaultValue.flatMap({ Int($0) }) {
                #expect(range.contains(value), "\(key.path)'s default \(value) is outside \(range)")
            }
        }
    }

    @Test("pizzad(8) and --help list every option")
    func daemonPage() {
        let page = ManualPages.daemon(date: "November 25, 2026")
        for option in DaemonCommand.options {
            #expect(page.contains(".It Fl \(option.flag.dropFirst())"), "\(option.flag) is not in pizzad(8)")
            #expect(DaemonCommand.usage.contains(option.flag), "\(option.flag) is not in --help")
        }
        for code in ["64", "65", "78"] { #expect(page.contains(".It \(code)\n")) }
        #expect(!page.contains("\n\n"))
    }
}
