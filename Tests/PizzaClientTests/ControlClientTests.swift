import CSystemShims
import Foundation
import NIOPosix
import PizzaClient
import PizzaProtocol
import PizzaTesting
import Testing

/// A Unix socket server in this process that does one scripted thing with each connection: what a daemon that is
/// gone, stuck or broken looks like to the client. (The client against a real pizzad: PizzaDaemonTests.)
private final class ScriptedServer: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let thread: Thread

    /// `reply` gets each request line and returns what to send back: nil sends nothing and keeps the connection,
    /// "" closes it.
    init(in folder: TemporaryFolder, reply: @escaping @Sendable (String) -> String?) throws {
        path = folder.file("scripted.sock")
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard pizzad_bind_unix(listener, path) == 0, listen(listener, 8) == 0 else {
            throw HarnessError("cannot listen at \(path): \(String(cString: strerror(errno)))")
        }
        let listener = listener
        thread = Thread {
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { return }
                Thread {
                    var pending: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let count = read(connection, &buffer, buffer.count)
                        if count <= 0 { break }
                        pending += buffer[..<count]
                        while let newline = pending.firstIndex(of: 0x0A) {
                            let line = String(decoding: pending[..<newline], as: UTF8.self)
                            pending.removeSubrange(...newline)
                            guard let answer = reply(line) else { continue }
                            if answer.isEmpty {
                                close(connection)
                                return
                            }
                            _ = answer.utf8CString.withUnsafeBufferPointer {
                                write(connection, $0.baseAddress, $0.count - 1)
                            }
                        }
                    }
                    close(connection)
                }.start()
            }
        }
        thread.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

@Suite("The control client against sockets that misbehave")
struct ControlClientTests {
    @Test("no socket file: notRunning, naming the socket and how to start pizzad")
    func noSocket() async throws {
        let folder = try TemporaryFolder("pizzad-client")
        let socket = folder.file("absent.sock")
        await #expect {
            try await ControlClient.withConnection(socket: socket) { try await $0.call("daemon.status") }
        } throws: { error in
            guard let error = error as? ClientError else { return false }
            return error.kind == .notRunning && error.description.contains(socket)
                && error.description.contains("--socket")
        }
    }

    @Test("a stale socket file nobody listens on: notRunning")
    func staleSocket() async throws {
        let folder = try TemporaryFolder("pizzad-client")
        let path = folder.file("stale.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(pizzad_bind_unix(fd, path) == 0)
        close(fd)
        await #expect {
            try await ControlClient.withConnection(socket: path) { try await $0.call("daemon.status") }
        } throws: { ($0 as? ClientError)?.kind == .notRunning }
    }

    @Test("a daemon that never answers: timedOut after the timeout, not a hang")
    func silent() async throws {
        let folder = try TemporaryFolder("pizzad-client")
        let server = try ScriptedServer(in: folder) { _ in nil }
        // Beside it, the same 300 ms timed on each of the event loops the client uses, and awaited from a task as
        // the client's answer is: how late this moment's machine makes a 300 ms timer (under the whole suite on two
        // cores it was once 33 s), so that the client's own timer is held to that and no looser.
        let reference = Task(executorPreference: BlockingTestExecutor.shared) {
            let started = ContinuousClock.now
            let timers = MultiThreadedEventLoopGroup.singleton.makeIterator().map { loop in
                loop.scheduleTask(in: .milliseconds(300)) {}.futureResult
            }
            for timer in timers { try? await timer.get() }
            return ContinuousClock.now - started
        }
        // The client's own task off the cooperative pool, which the rest of the suite's in-process servers and
        // blocking tests share: under the whole suite its awaits alone took 28 s of waiting for a thread there.
        let took = await withTaskExecutorPreference(BlockingTestExecutor.shared) {
            let started = ContinuousClock.now
            await #expect {
                try await ControlClient.withConnection(socket: server.path, timeout: .milliseconds(300)) {
                    try await $0.call("daemon.status")
                }
            } throws: { ($0 as? ClientError)?.kind == .timedOut }
            return ContinuousClock.now - started
        }
        // Not before its time: a timeout that fired at once (or a refusal taken for one) would end sooner.
        #expect(took >= .milliseconds(300), "timed out after \(took), before its 300 ms")
        // Nor much after: at most twice what the same timer took on this machine at this moment, and five seconds (the
        // client's path awaits more than the timer's: under the whole suite both took some 27 s, waiting for
        // threads, and with a second here a warm run once took 1.9 s against the timer's 0.3). A client that waited
        // for its 10 s default fails here.
        let timer = await reference.value
        #expect(took < timer * 2 + .seconds(5), "timed out after \(took); a 300 ms timer took \(timer)")
    }

    @Test("a daemon that hangs up: disconnected")
    func hangsUp() async throws {
        let folder = try TemporaryFolder("pizzad-client")
        let server = try ScriptedServer(in: folder) { _ in "" }
        await #expect {
            try await ControlClient.withConnection(socket: server.path) { try await $0.call("daemon.status") }
        } throws: { ($0 as? ClientError)?.kind == .disconnected }
    }

    @Test("an answer that is not a JSON-RPC response: badResponse, with what came")
    func garbage() async throws {
        let folder = try TemporaryFolder("pizzad-client")
        let server = try ScriptedServer(in: folder) { _ in "HTTP/1.1 400 Bad Request\n" }
        await #expect {
            try await ControlClient.withConnection(socket: server.path) { try await $0.call("daemon.status") }
        } throws: { ($0 as? ClientError)?.kind == .badResponse }
    }

    @Test("an error response is thrown as the RPCError it names, and the connection goes on")
    func errorResponse() async throws {
        let folder = try TemporaryFolder("pizzad-client")
        let server = try ScriptedServer(in: folder) { line in
            let id = line.contains(#""id":1"#) ? 1 : 2
            return id == 1
                ? #"{"jsonrpc":"2.0","id":1,"error":{"code":1001,"message":"no order with id 9"}}"# + "\n"
                : #"{"jsonrpc":"2.0","id":2,"result":{"ok":true}}"# + "\n"
        }
        try await ControlClient.withConnection(socket: server.path) { (client: ControlClient) async throws in
            await #expect {
                try await client.call("order.get", [("id", .int(9))])
            } throws: { ($0 as? RPCError)?.code == .notFound }
            let answer = try await client.call("audit.verify")
            #expect(answer["ok"]?.boolValue == true)
        }
    }
}
