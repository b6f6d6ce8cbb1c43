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

    @Test("pizzad(8) and --help list every option of pizzad and of each subcommand, from the same declarations")
    func daemonPage() throws {
        let page = ManualPages.daemon(date: "November 25, 2026")
        let help = PizzadCommand.helpMessage()
        for flag in ["config", "database", "socket", "log-level"] {
            #expect(page.contains(".It Fl -\(flag) Ar "), "--\(flag) is not in pizzad(8)")
            #expect(help.contains("--\(flag)"), "--\(flag) is not in --help")
        }
        for command in ["restore", "check-config", "migrate-central"] {
            #expect(page.contains(".Sh \(command.uppercased())"), "\(command) has no section in pizzad(8)")
            #expect(help.contains(command), "\(command) is not in --help")
        }
        #expect(!page.contains("check-config Ar") && !help.contains("--migrate-central"), "the old flags stay hidden")
        for code in ["64", "65", "69", "73", "75", "78"] { #expect(page.contains(".It \(code)\n")) }
        #expect(!page.contains("\n\n"))
    }

    @Test("each key's flag is named by the key, and its help names the key and its variables")
    func flagsFromKeys() {
        let help = PizzadCommand.helpMessage()
        for key in ConfigurationSchema.keys {
            guard let flag = key.flag else { continue }
            #expect(help.contains(flag.spelled + " <" + flag.valueName + ">"), "\(help)")
            #expect(help.contains(key.path), "\(key.path) is not named in --help")
        }
    }

    @Test("pizzad(8) lists every option of pizzad restore")
    func restoreOptions() {
        let page = ManualPages.daemon(date: "November 25, 2026")
        #expect(page.contains(".Sh RESTORE"))
        for flag in [
            "from-backup Ar FILE", "from-central", "until-seq Ar N", "until Ar TIME", "dry-run", "force",
            "if-db-not-exists",
        ] {
            #expect(page.contains(".It Fl -\(flag)\n"), "--\(flag) is not in pizzad(8)")
        }
    }

    func restore(_ arguments: [String]) throws -> RestoreOptions? {
        (try PizzadCommand.parseAsRoot(["restore"] + arguments) as? RestoreCommand)?.options
    }

    @Test("pizzad restore's command line: one source, one point, values checked, usage errors named")
    func restoreParsing() throws {
        let options = try #require(try restore(["--from-central", "--until-seq", "7"]))
        #expect(options.source == .central && options.point == .seq(7) && !options.force)
        let backup = try #require(
            try restore([
                "--from-backup=/b.sqlite", "--until", "2026-11-25T18:00:00Z", "--force", "--dry-run",
                "--if-db-not-exists", "--database", "/d.sqlite",
            ]))
        #expect(backup.source == .backup("/b.sqlite") && backup.force && backup.dryRun && backup.ifNotExists)
        #expect(backup.flags.database == "/d.sqlite")
        for bad in [
            [], ["--from-central", "--from-backup", "x"], ["--from-backup"], ["--from-central", "--until-seq", "-1"],
            ["--from-central", "--until", "yesterday"],
            ["--from-central", "--until-seq", "3", "--until", "2026-11-25"],
            ["--from-central", "--socket", "/s"],
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try restore(bad) }
        }
    }

    @Test("the daemon is the default; the old --check-config and --migrate-central flags still parse")
    func oldFlags() throws {
        let daemon = try #require(try PizzadCommand.parseAsRoot(["--database", "/d.sqlite"]) as? PizzadCommand)
        #expect(daemon.options.flags.database == "/d.sqlite" && !daemon.checkConfig)
        let check = try #require(try PizzadCommand.parseAsRoot(["--check-config", "--config", "/c"]) as? PizzadCommand)
        #expect(check.checkConfig && check.options.config == "/c")
        #expect(try PizzadCommand.parseAsRoot(["check-config", "--config", "/c"]) is CheckConfigCommand)
        #expect(try PizzadCommand.parseAsRoot(["migrate-central"]) is MigrateCentralCommand)
        #expect((try PizzadCommand.parseAsRoot(["--migrate-central"]) as? PizzadCommand)?.migrateCentral == true)
        #expect(throws: (any Error).self) { try PizzadCommand.parseAsRoot(["--check-config", "--migrate-central"]) }
        #expect(throws: (any Error).self) { try PizzadCommand.parseAsRoot(["--frobnicate"]) }
    }
}
