import ArgumentParser
import FoundationEssentials
import Glibc
import PizzaClient
import PizzaProtocol
import PizzaWire

/// pizzactl's entry point: the `pizzactl` program's, and `pizzad`'s when it is started under the name `pizzactl`
/// (the Debian package installs `pizzactl` as a link to `pizzad`: one binary carries SwiftNIO, the protocol and
/// argument-parser once, not twice).
public enum PizzactlProgram {
    /// Parses the process's arguments as pizzactl's, runs the command they name, and exits with its code.
    public static func main() async { await Pizzactl.main() }
}

/// pizzactl: the operator's command line for pizzad (CONTRACT section 5).
struct Pizzactl: AsyncParsableCommand {
    static let version = PizzadVersion.current

    static let configuration = CommandConfiguration(
        commandName: "pizzactl",
        abstract: "Drive and inspect pizzad, the pizza shop's order daemon.",
        discussion: """
            PIZZA is KIND[:SIZE][,crust=C][,chili][,ketchup][,extra=X]...[,qty=N], e.g. chicken:L,crust=thin,chili,extra=olives

            Exit codes: 0 ok, 1 the daemon refused, 2 usage, 3 cannot reach the daemon, 4 permission denied.
            Shell completions: pizzactl --generate-completion-script bash|zsh|fish
            """,
        version: version,
        subcommands: [
            Status.self, MenuCommand.self, OrderCommand.self, Watch.self, Board.self, AuditCommand.self,
            ReportCommand.self,
            Metrics.self,
            DB.self, ReplicationCommand.self, DeviceCommand.self, OutboxCommand.self,
        ]
    )

    @OptionGroup var global: GlobalOptions

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            Pizzactl.finish(with: error)
        }
    }

    /// Prints `error` and exits with the contract's code for it.
    static func finish(with error: any Error) -> Never {
        switch error {
        case let error as RPCError:
            Output.error("\(error.code.name): \(error.message)")
            Glibc.exit(error.code == .permissionDenied ? 4 : 1)
        case let error as ClientError:
            Output.error(error.description)
            Glibc.exit(error.kind == .permissionDenied ? 4 : 3)
        case let error as CommandFailure:
            Output.error(error.message)
            Glibc.exit(1)
        case let error as AnswerError:
            Output.error(error.description)
            Glibc.exit(1)
        default:
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            let message = fullMessage(for: error)
            if !message.isEmpty { Output.error(message) }
            Glibc.exit(code == .failure ? 1 : 2)
        }
    }
}
