import Foundation
import PizzaCore
import PizzaMetrics
import PizzaOutbox
import PizzaProtocol
import PizzaReplication
import PizzaTesting
import Testing

@testable import PizzaDaemon

/// What the operator's documents name exists (issue 80, item 5): every configuration key, `pizzactl` command, order
/// API route and metric that README.md, docs/OPERATIONS.md, docs/TESTING.md and docs/CONTRACT.md write in backticks.
/// A renamed key or command fails here, not in a shop following the guide.
@Suite("The documents name what exists")
struct DocsTruthTests {
    static let repository = ManualPagesTests.repository

    /// The operator's documents' text (the changelog is history: it names what was).
    static func documents() throws -> String {
        try ["README.md", "docs/OPERATIONS.md", "docs/TESTING.md", "docs/CONTRACT.md"].map {
            try String(contentsOfFile: repository + "/" + $0, encoding: .utf8)
        }.joined(separator: "\n")
    }

    /// Every match of `pattern`'s first group in `text`.
    static func matches(_ pattern: String, in text: String) throws -> Set<String> {
        let expression = try NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return Set(
            expression.matches(in: text, range: range).compactMap { match in
                Range(match.range(at: 1), in: text).map { String(text[$0]) }
            })
    }

    @Test("every configuration key in backticks is the schema's")
    func configurationKeys() throws {
        let sections = Set(ConfigurationSchema.keys.map { String($0.path.split(separator: ".").first ?? "") })
        let known = Set(ConfigurationSchema.keys.map(\.path))
        let methods = Set(RPCMethod.allCases.map(\.rawValue) + OrderOperation.allCases.map(\.rawValue))
        let named = try Self.matches(#"`([a-z]+\.[a-zA-Z.<>]+)(?::[^`]*)?`"#, in: try Self.documents())
        var unknown: [String] = []
        for key in named {
            let section = String(key.split(separator: ".").first ?? "")
            // File names (`api.pem`) and the socket's methods (`menu.list`) are not keys.
            guard sections.contains(section), !key.hasSuffix("."),
                ![".sqlite", ".yaml", ".pem", ".key"].contains(where: key.hasSuffix), !methods.contains(key)
            else { continue }
            // `board.<status>.warnSeconds` stands for one key per status.
            let pattern = key.replacingOccurrences(of: "<status>", with: "placed")
            // `menu.fees.delivery` is an entry of the menu's mapping `menu.fees`, as `menu.kinds.cheese` is of its kinds.
            let inMapping = ConfigurationSchema.keys.contains { $0.kind == .menu && pattern.hasPrefix($0.path + ".") }
            if !known.contains(pattern), !known.contains(where: { $0.hasPrefix(pattern + ".") }), !inMapping {
                unknown.append(key)
            }
        }
        #expect(unknown.isEmpty, "named in the documents, not in the schema: \(unknown.sorted())")
    }

    @Test("every metric named is one pizzad exports")
    func metrics() throws {
        var known = Set(MetricsCollector.help.keys)
        known.formUnion(DaemonMetrics.help.keys)
        known.formUnion(Replicator.metricsHelp.keys)
        known.formUnion(Outbox.metricsHelp.keys)
        known.formUnion(HealthService.help.keys)
        // The centre's tables and roles are named pizzad_… too: those of migrations/central are not metrics.
        let central = try FileManager.default.contentsOfDirectory(atPath: Self.repository + "/migrations/central")
            .map { try String(contentsOfFile: Self.repository + "/migrations/central/" + $0, encoding: .utf8) }
            .joined(separator: "\n")
        known.formUnion(try Self.matches(#"(pizzad_[a-z_]+[a-z])"#, in: central))
        // A metric as the documents write one: in backticks, alone or with its labels (`pizzad_x{a,b}`); role and
        // database names in the examples' shell lines are the operator's own.
        let named = try Self.matches(#"`(pizzad_[a-z_]+[a-z])[`{]"#, in: try Self.documents())
        let unknown = named.filter { name in
            let base = ["_bucket", "_count", "_sum"].reduce(name) { name, suffix in
                name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : name
            }
            return !known.contains(name) && !known.contains(base)
        }
        #expect(unknown.isEmpty, "named in the documents, not exported: \(unknown.sorted())")
    }

    @Test("every order API route named is in docs/openapi.yaml")
    func routes() throws {
        let document = try String(contentsOfFile: Self.repository + "/docs/openapi.yaml", encoding: .utf8)
        let paths = try Self.matches(#"\n  (/v1/[^:\n]*):"#, in: document)
        let named = try Self.matches(#"`(?:GET|POST|PUT|DELETE|HEAD) (/v1/[^` ?]*)"#, in: try Self.documents())
        let unknown = named.filter { path in
            let parts = path.split(separator: "/")
            return !paths.contains { documented in
                let template = documented.split(separator: "/")
                return template.count == parts.count
                    && zip(template, parts).allSatisfy { $0 == $1 || $0.hasPrefix("{") || $1.hasPrefix("{") }
            }
        }
        #expect(!paths.isEmpty)
        #expect(unknown.isEmpty, "named in the documents, not in docs/openapi.yaml: \(unknown.sorted())")
    }

    @Test("every pizzactl command named answers its --help")
    func commands() throws {
        let pizzactl = BuiltPrograms.pizzactl
        let named = try Self.matches(#"`pizzactl ((?:[a-z]+)(?: [a-z]+)?)"#, in: try Self.documents())
        var failed: [String] = []
        var tried: Set<String> = []
        for command in named {
            // `pizzactl order new` and `pizzactl order 7`: the words up to the first that is not a command.
            var words = command.split(separator: " ").map(String.init)
            while !words.isEmpty {
                let attempt = words.joined(separator: " ")
                if tried.contains(attempt) { break }
                // The command's own help, not the root's (which argument-parser shows for a word it does not know).
                let result = try ChildProcess.run(pizzactl, words + ["--help"])
                if result.status == 0, result.output.contains("USAGE: pizzactl \(attempt)") {
                    tried.insert(attempt)
                    break
                }
                words.removeLast()
            }
            if words.isEmpty { failed.append(command) }
        }
        #expect(failed.isEmpty, "named in the documents, not a pizzactl command: \(failed.sorted())")
    }
}
