import ArgumentParser
import FoundationEssentials
import Glibc
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaWire

/// The options every command takes, written anywhere on the command line (`pizzactl --json order show 1` or
/// `pizzactl order show 1 --json`); the root command holds them and every command reads them through
/// ``PizzactlCommand``.
struct GlobalOptions: ParsableArguments {
    /// Every command's help ends with this: the root command holds the options, so argument-parser does not list
    /// them under each command.
    static let help = """
        Global options, before or after the command: --socket PATH (default: $PIZZAD_SOCKET, /run/pizzad/pizzad.sock, \
        .pizzad/pizzad.sock), --json (print the daemon's JSON result, nothing else), --timeout SECONDS (default 10).
        """

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
                .hello,
                [("client", .string("pizzactl \(Pizzactl.version)")), ("protocol", .string(ProtocolVersion.current))])
            return try await body(client)
        }
    }

    /// Calls one order operation and prints its result; see the method form below.
    func call(_ operation: OrderOperation, _ params: [(String, JSONValue)] = [], render: (JSONValue) throws -> Void)
        async throws
    {
        try await call(operation.rawValue, params, render: render)
    }

    /// Calls one method and prints its result; see the form by name below.
    func call(_ method: RPCMethod, _ params: [(String, JSONValue)] = [], render: (JSONValue) throws -> Void)
        async throws
    {
        try await call(method.rawValue, params, render: render)
    }

    /// Calls one method and prints its result: as JSON with `--json`, else with `render`.
    private func call(_ method: String, _ params: [(String, JSONValue)] = [], render: (JSONValue) throws -> Void)
        async throws
    {
        let result = try await withDaemon { try await $0.call(method, params) }
        if json {
            print(result.prettyText)
        } else {
            try render(result)
        }
    }
}
