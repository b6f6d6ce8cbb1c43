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

    /// Calls one method and prints its answer: as the daemon's JSON with `--json`, else with `render`, given the
    /// answer read as `A` (an answer that does not read is an error naming the member, not a "-" in a table).
    func call<A: Answer>(
        _ method: RPCMethod, _ params: [(String, JSONValue)] = [], as type: A.Type, render: (A) throws -> Void
    ) async throws {
        try await call(method.rawValue, params) { try render(try Self.read(type, of: method.rawValue, from: $0)) }
    }

    /// Calls one order operation and prints its answer read as `A`; see the method form above.
    func call<A: Answer>(
        _ operation: OrderOperation, _ params: [(String, JSONValue)] = [], as type: A.Type,
        render: (A) throws -> Void
    ) async throws {
        try await call(operation.rawValue, params) {
            try render(try Self.read(type, of: operation.rawValue, from: $0))
        }
    }

    /// Calls one method and returns its answer read as `A`, printing the daemon's JSON with `--json`.
    func answer<A: Answer>(_ method: RPCMethod, _ params: [(String, JSONValue)] = [], as type: A.Type) async throws
        -> A
    {
        let result = try await withDaemon { try await $0.call(method, params) }
        if json { print(result.prettyText) }
        return try Self.read(type, of: method.rawValue, from: result)
    }

    /// `result` as `A`, or an ``AnswerError`` naming the method and the member.
    static func read<A: Answer>(_ type: A.Type, of method: String, from result: JSONValue) throws -> A {
        do {
            return try A(json: result)
        } catch {
            throw AnswerError(method: method, error)
        }
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
