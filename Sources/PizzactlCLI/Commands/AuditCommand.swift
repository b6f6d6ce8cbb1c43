import ArgumentParser
import FoundationEssentials
import Glibc
import PizzaProtocol
import PizzaWire

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Read and check the audit log.", subcommands: [List.self, Verify.self])

    struct List: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List audit entries, oldest first.", discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Option(help: "Only entries after this sequence number.") var after: Int64?
        @Option(help: "At most this many (1 to 1000).") var limit: Int = 100
        @Option(help: "Only entries of this order.") var order: Int64?

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
        }

        func run() async throws {
            var params: [(String, JSONValue)] = [("limit", .int(Int64(limit)))]
            if let after { params.append(("after", .int(after))) }
            if let order { params.append(("order", .int(order))) }
            try await global.call(.auditList, params, as: AuditListAnswer.self) { result in
                Output.table(
                    ["SEQ", "TIME", "WHO", "ACTION", "ORDER", "STATUS", "REASON"],
                    result.entries.map { entry in
                        [
                            String(entry.seq), Output.time(entry.at), Output.actor(entry.actor, uid: true),
                            entry.action, entry.order.map { String($0) } ?? "-", entry.status ?? "-",
                            entry.reason.map(Output.safe) ?? "-",
                        ]
                    }, right: [0, 4])
            }
        }
    }

    struct Verify: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify", abstract: "Check the audit hash chain and that every order matches it.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            let result = try await global.answer(.auditVerify, as: AuditVerifyAnswer.self)
            guard result.ok else {
                throw CommandFailure(
                    message:
                        "audit log does not verify: \(result.problem ?? "-") (first bad entry: \(result.firstBad.map(String.init) ?? "-"))"
                )
            }
            if !global.json { print("audit log ok: \(result.entries) entries verified") }
        }
    }
}
