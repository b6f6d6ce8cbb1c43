import ArgumentParser
import FoundationEssentials
import Glibc
import PizzaProtocol
import PizzaWire

struct DB: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db", abstract: "Back up and check the database.", subcommands: [Backup.self, Check.self])

    struct Backup: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup", abstract: "Write a consistent online copy of the database to PATH.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "Where to write the copy (must not exist).", completion: .file()) var path: String

        func validate() throws {
            guard !path.isEmpty, !path.hasSuffix("/") else {
                throw ValidationError("PATH is the copy's file name, e.g. /var/lib/pizzad/backup-2026-11-24.sqlite")
            }
        }

        func run() async throws {
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            try await global.call(.backup, [("path", .string(absolute))], as: BackupAnswer.self) { result in
                print("backup written: \(result.path) (\(result.bytes) bytes, integrity checked)")
            }
        }
    }

    struct Check: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "check", abstract: "Run integrity_check and foreign_key_check.", discussion: GlobalOptions.help
        )
        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            let result = try await global.answer(.check, as: CheckAnswer.self)
            if !global.json { result.messages.forEach { print($0) } }
            guard result.ok else { throw CommandFailure(message: "database check failed") }
        }
    }
}
