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
        for code in ["64", "65", "69", "73", "75", "78"] { #expect(page.contains(".It \(code)\n")) }
        #expect(!page.contains("\n\n"))
    }

    @Test("pizzad(8) and --help list every option of pizzad restore")
    func restoreOptions() {
        let page = ManualPages.daemon(date: "November 25, 2026")
        #expect(page.contains(".Sh RESTORE"))
        for option in RestoreOptions.options {
            #expect(page.contains(".It Fl \(option.flag.dropFirst())"), "\(option.flag) is not in pizzad(8)")
            #expect(DaemonCommand.usage.contains(option.flag), "\(option.flag) is not in --help")
        }
    }

    @Test("pizzad restore's command line: one source, one point, values checked, usage errors named")
    func restoreParsing() throws {
        guard case .restore(let options) = try DaemonCommand.parse(["restore", "--from-central", "--until-seq", "7"])
        else {
            Issue.record("not a restore")
            return
        }
        #expect(options.source == .central && options.point == .seq(7) && !options.force)
        guard
            case .restore(let backup) = try DaemonCommand.parse([
                "restore", "--from-backup=/b.sqlite", "--until", "2026-11-25T18:00:00Z", "--force", "--dry-run",
                "--if-db-not-exists", "--database", "/d.sqlite",
            ])
        else {
            Issue.record("not a restore")
            return
        }
        #expect(backup.source == .backup("/b.sqlite") && backup.force && backup.dryRun && backup.ifNotExists)
        #expect(backup.flags.database == "/d.sqlite")
        for bad in [
            ["restore"], ["restore", "--from-central", "--from-backup", "x"], ["restore", "--from-backup"],
            ["restore", "--from-central", "--until-seq", "-1"], ["restore", "--from-central", "--until", "yesterday"],
            ["restore", "--from-central", "--until-seq", "3", "--until", "2026-11-25"],
            ["restore", "--from-central", "--socket", "/s"],
        ] {
            #expect(throws: DaemonCommand.UsageError.self, "\(bad)") { try DaemonCommand.parse(bad) }
        }
    }
}
