import Foundation
import Logging
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaTesting
import PizzaWire
import SQLite

@testable import PizzaDaemon

/// pizzad's methods without a process or a socket: the daemon's own state (repository, subscribers, access) over
/// a real SQLite file in a temporary folder, and its dispatcher, which a request line reaches as the control
/// socket's connection hands it over (parsed, looked up, the role checked, run) and which answers the line the
/// socket would write. What needs the process (signals, systemd, crashes, the socket's framing, backpressure and
/// permissions) stays in PizzaDaemonTests. Released, it closes its connections (ten made and dropped in a row leave
/// the test process's descriptors where they were).
final class InProcessDaemon: Sendable {
    let folder: TemporaryFolder
    let state: DaemonState
    let dispatcher: RPCDispatcher

    /// The repository's root (for `migrations/`).
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// A daemon configured by `config` (YAML text, as `pizzad.yaml`) on a new database.
    init(config: String = "") async throws {
        folder = try TemporaryFolder("pizzad-inprocess")
        let file = folder.path + "/pizzad.yaml"
        try Data(config.utf8).write(to: URL(fileURLWithPath: file))
        let configuration = try await ConfigurationLoader(
            flags: .init(config: file, database: folder.path + "/pizzad.sqlite", socket: folder.path + "/pizzad.sock"),
            environment: [:]
        ).load()
        let store = try SQLiteOrderStore(
            path: configuration.databasePath,
            migrations: try Migration.load(from: Self.repository + "/migrations"),
            settings: ConnectionSettings(
                synchronous: configuration.synchronous,
                busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds))
        var logger = Logger(label: "pizzad-inprocess")
        logger.logLevel = .critical
        state = try await DaemonState(store: store, configuration: configuration, daemonUID: getuid(), logger: logger)
        dispatcher = RPCDispatcher(state: state)
    }

    /// The answer to one request line, from `peer` (this process's user unless told), as the socket would write
    /// it, decoded as the tests' raw connection decodes it.
    func request(_ line: String, peer: Peer = Peer(uid: getuid(), gid: getgid(), pid: getpid())) async throws
        -> [String: Any]
    {
        let answer = await answerLine(line, peer: peer)
        guard let response = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any] else {
            throw HarnessError("not a JSON object: \(String(decoding: answer, as: UTF8.self))")
        }
        return response
    }

    /// The bytes the socket would write in answer to `line` (its newline included).
    func answerLine(_ line: String, peer: Peer) async -> [UInt8] {
        let request: RPCRequest
        do {
            request = try RPCRequest.parse(Array(line.utf8))
        } catch {
            return RPCResponse.failure(id: error.id, error: error.error)
        }
        let result: Result<JSONValue, RPCError>
        switch dispatcher.dispatch(request, peer: peer, role: state.role(of: peer)) {
        case .answered(let answered): result = answered
        case .subscribe: result = .success(["watching": true])
        case .submit(let submission):
            let outcome = await withCheckedContinuation { continuation in
                dispatcher.submit(submission) { continuation.resume(returning: $0) }
            }
            result = dispatcher.answer(outcome, method: request.method)
        case .later(let run): result = await run()
        }
        switch result {
        case .success(let value): return RPCResponse.success(id: request.id ?? .null, result: value)
        case .failure(let error): return RPCResponse.failure(id: request.id, error: error)
        }
    }
}
