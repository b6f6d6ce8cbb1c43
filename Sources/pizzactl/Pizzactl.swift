import ArgumentParser
import Foundation
import PizzaClient
import PizzaProtocol

/// pizzactl: the operator's command line for pizzad (CONTRACT section 5).
@main
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
            Status.self, MenuCommand.self, OrderCommand.self, Watch.self, AuditCommand.self, Metrics.self, DB.self,
            ReplicationCommand.self,
        ]
    )

    static func main() async {
        do {
            var command = try parseAsRoot(globalOptionsLast(Array(CommandLine.arguments.dropFirst())))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            Pizzactl.finish(with: error)
        }
    }

    /// Moves the global options written before the command (`pizzactl --json order show 1`) behind it, where
    /// every command's option group reads them.
    static func globalOptionsLast(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--json" {
                leading.append(argument)
            } else if argument == "--socket" || argument == "--timeout", index + 1 < arguments.count {
                leading.append(contentsOf: [argument, arguments[index + 1]])
                index += 1
            } else if argument.hasPrefix("--socket=") || argument.hasPrefix("--timeout=") {
                leading.append(argument)
            } else {
                break
            }
            index += 1
        }
        let rest = Array(arguments[index...])
        guard !leading.isEmpty, !rest.isEmpty else { return arguments }
        if let separator = rest.firstIndex(of: "--") {
            return Array(rest[..<separator]) + leading + Array(rest[separator...])
        }
        return rest + leading
    }

    /// Prints `error` and exits with the contract's code for it.
    static func finish(with error: any Error) -> Never {
        switch error {
        case let error as RPCError:
            Output.error("\(error.code.name): \(error.message)")
            Foundation.exit(error.code == .permissionDenied ? 4 : 1)
        case let error as ClientError:
            Output.error(error.description)
            Foundation.exit(error.kind == .permissionDenied ? 4 : 3)
        case let error as CommandFailure:
            Output.error(error.message)
            Foundation.exit(1)
        default:
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            let message = fullMessage(for: error)
            if !message.isEmpty { Output.error(message) }
            Foundation.exit(code == .failure ? 1 : 2)
        }
    }
}

/// A command that ran but whose answer means failure (a broken audit chain, a failed check).
struct CommandFailure: Error {
    let message: String
}

/// The options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long, help: "The control socket (default: $PIZZAD_SOCKET, /run/pizzad/pizzad.sock, .pizzad/pizzad.sock)."
    )
    var socket: String?

    @Flag(name: .long, help: "Print the daemon's JSON result, nothing else.")
    var json = false

    @Option(name: .long, help: "Seconds to wait for the daemon.")
    var timeout: Double = 10

    mutating func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    /// `--socket`, then `PIZZAD_SOCKET`, then the installed path if it exists, then the development path.
    var socketPath: String {
        if let socket { return socket }
        if let fromEnvironment = ProcessInfo.processInfo.environment["PIZZAD_SOCKET"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        if FileManager.default.fileExists(atPath: "/run/pizzad/pizzad.sock") { return "/run/pizzad/pizzad.sock" }
        return ".pizzad/pizzad.sock"
    }

    /// Connects, checks the daemon speaks our protocol (`daemon.hello`), then runs `body`.
    func withDaemon<T>(_ body: (ControlClient) async throws -> T) async throws -> T {
        try await ControlClient.withConnection(socket: socketPath, timeout: .milliseconds(Int64(timeout * 1000))) {
            client in
            _ = try await client.call(
                "daemon.hello",
                [("client", .string("pizzactl \(Pizzactl.version)")), ("protocol", .string(ProtocolVersion.current))])
            return try await body(client)
        }
    }

    /// Calls one method and prints its result: as JSON with `--json`, else with `render`.
    func call(_ method: String, _ params: [(String, JSONValue)] = [], render: (JSONValue) throws -> Void) async throws {
        let result = try await withDaemon { try await $0.call(method, params) }
        if json {
            print(result.prettyText)
        } else {
            try render(result)
        }
    }
}
