import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import PizzaProtocol

/// The event loops' floor: what SwiftNIO itself costs a request in pizzad's shape on this machine, so that the gap
/// between pizzad's loops and the socket bound's (C, epoll) can be split into NIO's part and pizzad's own.
///
/// pizzad's loop side with nothing of pizzad in it: a Unix socket served by SwiftNIO's event loops (one per core, as
/// pizzad's), a handler that cuts its lines as pizzad's does (`LineSplitter`; `LineFrameDecoder` behind
/// `ByteToMessageHandler` until pizzad's connections stopped using them) and hands each line to one writer thread.
/// The writer takes everything queued, waits as long as a commit (no SQLite, no parsing), then hands the answers back
/// to their connections' loops, one `execute` a loop for the batch (as pizzad's `AnswerHandBack` does), where a fixed
/// order answer (the 560 bytes pizzad answers a till's two-pizza order with) is copied into a new buffer and written
/// for each, as pizzad writes its answers. `pizzabench counts` loads it with the C till (`Baselines/ctill.c`) and
/// counts it as it counts pizzad and the bound; only its loops are comparable.
enum NIOFloor {
    /// The answer to every line.
    static let answer = Array(
        (#"{"jsonrpc":"2.0","id":1,"result":{"id":1,"ref":"6748b2c1c3-1000","customer":"bench","note":null,"#
            + #""status":"placed","currency":"EUR","total":2150,"createdAt":"2026-11-28T03:00:00.000Z","#
            + #""updatedAt":"2026-11-28T03:00:00.000Z","items":[{"id":1,"kind":"chicken","size":"L","#
            + #""crust":"classic","chiliSauce":false,"ketchup":false,"extras":["olives"],"quantity":1,"#
            + #""unitPrice":1330},{"id":2,"kind":"cheese","size":"M","crust":"classic","chiliSauce":false,"#
            + #""ketchup":false,"extras":[],"quantity":1,"unitPrice":900}]}}"# + "\n").utf8)

    /// Serves `socket` until the process is stopped; each batch of answers waits `commit` first.
    static func serve(socket: String, commit: TimeInterval) throws -> Never {
        try? FileManager.default.removeItem(atPath: socket)
        let writer = Writer(commit: commit)
        Thread.detachNewThread { writer.run() }
        _ = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(writer: writer))
                }
            }
            .bind(unixDomainSocketPath: socket).wait()
        while true { sleep(60) }
    }

    /// One connection: each line goes to the writer, and its answer comes back to this loop.
    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let writer: Writer
        var lines = LineSplitter()

        init(writer: Writer) { self.writer = writer }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            lines.append(unwrapInboundIn(data))
            while (try? lines.next()) != nil {
                writer.submit(NIOLoopBound(context, eventLoop: context.eventLoop))
            }
        }
    }

    /// The writer thread: takes all that is queued, waits a commit, hands back.
    final class Writer: @unchecked Sendable {
        typealias Waiting = NIOLoopBound<ChannelHandlerContext>
        private let condition = NSCondition()
        /// Guarded by `condition`.
        private var queue: [Waiting] = []
        private let commit: TimeInterval

        init(commit: TimeInterval) { self.commit = commit }

        func submit(_ waiting: Waiting) {
            condition.lock()
            queue.append(waiting)
            condition.signal()
            condition.unlock()
        }

        func run() {
            var batch: [Waiting] = []
            while true {
                condition.lock()
                while queue.isEmpty { condition.wait() }
                swap(&batch, &queue)
                condition.unlock()
                Thread.sleep(forTimeInterval: commit)
                var byLoop: [ObjectIdentifier: [Waiting]] = [:]
                for waiting in batch { byLoop[ObjectIdentifier(waiting.eventLoop), default: []].append(waiting) }
                for group in byLoop.values {
                    group[0].eventLoop.execute {
                        for waiting in group { Self.answer(waiting.value) }
                    }
                }
                batch.removeAll(keepingCapacity: true)
            }
        }

        private static func answer(_ context: ChannelHandlerContext) {
            var line = context.channel.allocator.buffer(capacity: NIOFloor.answer.count)
            line.writeBytes(NIOFloor.answer)
            context.writeAndFlush(NIOAny(line), promise: nil)
        }
    }
}

extension Counts {
    /// SwiftNIO's floor (``NIOFloor``: this binary's `nio-floor`), loaded by the C till (`Baselines/ctill.c`, built
    /// into `directory`'s parent), counted as pizzad and the bound are; its orders are the till's answers.
    static func countFloor(library: String, directory: String, window: Double) throws -> PerOrder {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let till = try cTill(in: (directory as NSString).deletingLastPathComponent)
        let socket = directory + "/floor.sock"
        let progress = directory + "/answered"
        let countsFile = directory + "/floor.counts"
        let server = try startFloor(
            socket: socket, environment: ["LD_PRELOAD": library, "ALLOC_COUNT_FILE": countsFile])
        defer {
            server.terminate()
            server.waitUntilExit()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try waitForSocket(socket, of: server, within: 10)
        let clients = try startTill(till, socket: socket, clients: 16, seconds: 2 * window + 3, progress: progress)
        Thread.sleep(forTimeInterval: 1.5)
        let floor = try count(pid: server.processIdentifier, countsFile: countsFile, window: window) {
            try answered(progress)
        }
        clients.waitUntilExit()
        guard clients.terminationStatus == 0 else { throw BenchError("the C till against nio-floor failed") }
        return floor
    }

    /// This binary's `nio-floor` serving `socket`, with `environment`, or under `valgrind` (its command line, whose
    /// output is dropped) on a copy of this binary made in `directory` by ``Instructions/stripped(_:into:)``.
    static func startFloor(
        socket: String, environment: [String: String]? = nil, valgrind: [String] = [], directory: String? = nil
    ) throws -> Process {
        var binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        if let directory { binary = try Instructions.stripped(binary, into: directory) }
        let command = valgrind + [binary, "nio-floor", "--socket", socket]
        let server = Process()
        server.executableURL = URL(fileURLWithPath: command[0])
        server.arguments = Array(command.dropFirst())
        if let environment { server.environment = environment }
        server.standardOutput = FileHandle.nullDevice
        if !valgrind.isEmpty { server.standardError = FileHandle.nullDevice }
        try server.runWithCleanSignals()
        return server
    }

    /// The C till (`Baselines/ctill.c`), built into `directory` the first time.
    static func cTill(in directory: String) throws -> String {
        let till = directory + "/ctill"
        if !FileManager.default.fileExists(atPath: till) {
            try Bench.run("/usr/bin/env", ["gcc", "-O2", "-pthread", "-o", till, Steps.baselines + "/ctill.c"])
        }
        return till
    }

    /// Waits until `server` has opened `socket`.
    static func waitForSocket(_ socket: String, of server: Process, within seconds: Double) throws {
        let started = Date()
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date().timeIntervalSince(started) < seconds, server.isRunning else {
                throw BenchError("nio-floor did not open \(socket)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The C till's clients on `socket` for `seconds`, writing the orders answered so far into `progress`.
    static func startTill(_ till: String, socket: String, clients: Int, seconds: Double, progress: String) throws
        -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: till)
        process.arguments = [socket, String(clients), Bench.format(seconds, 1)]
        process.environment = ["PROGRESS": progress]
        process.standardOutput = FileHandle.nullDevice
        try process.runWithCleanSignals()
        return process
    }

    /// The orders the C till has had answered. It rewrites the file ten times a second: read between its truncation
    /// and its write, it is empty, so it is read again.
    static func answered(_ progress: String) throws -> Int {
        for _ in 0..<50 {
            if let text = try? String(contentsOfFile: progress, encoding: .utf8), let answered = Int(text.trimmed) {
                return answered
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw BenchError("cannot read the C till's progress in \(progress)")
    }
}

extension Instructions {
    /// SwiftNIO's floor (this binary's `nio-floor`, from a copy without debug information) under callgrind, loaded by
    /// the C till with `clients` clients; only its loops compare with the other servers'.
    static func countFloor(clients: Int, directory: String, window: Double, top: Int) throws -> Counted {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let till = try Counts.cTill(in: (directory as NSString).deletingLastPathComponent)
        let socket = directory + "/floor.sock"
        let progress = directory + "/answered"
        let server = try Counts.startFloor(socket: socket, valgrind: try callgrind(directory), directory: directory)
        defer {
            server.terminate()
            server.waitUntilExit()
            try? FileManager.default.removeItem(atPath: directory)
        }
        // Under Valgrind the binary takes some seconds to start.
        try Counts.waitForSocket(socket, of: server, within: 60)
        let clients = try Counts.startTill(
            till, socket: socket, clients: clients, seconds: warmUp + window + 5, progress: progress)
        Thread.sleep(forTimeInterval: warmUp)
        let floor = try count(pid: server.processIdentifier, directory: directory, window: window, top: top) {
            try Counts.answered(progress)
        }
        clients.waitUntilExit()
        guard clients.terminationStatus == 0 else { throw BenchError("the C till against nio-floor failed") }
        return floor
    }
}

/// `pizzabench nio-floor`: the floor's server, started by `pizzabench counts` (not listed in the help).
struct NIOFloorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nio-floor", abstract: "SwiftNIO's floor in pizzad's shape (started by counts).",
        shouldDisplay: false)
    @Option(help: "The Unix socket to serve.") var socket: String
    @Option(help: "Microseconds each batch of answers waits, as for a commit.") var commitMicros = 400

    func validate() throws {
        guard commitMicros >= 0 else { throw ValidationError("--commit-micros is 0 or more, not \(commitMicros)") }
        guard !socket.isEmpty, socket.utf8.count < 108 else {
            throw ValidationError("--socket needs a path of 1 to 107 bytes (a Unix socket's limit)")
        }
    }

    func run() throws { try NIOFloor.serve(socket: socket, commit: Double(commitMicros) / 1e6) }
}
