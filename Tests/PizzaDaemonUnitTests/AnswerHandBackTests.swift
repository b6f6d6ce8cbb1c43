import Foundation
import Locking
import NIOCore
import NIOPosix
import PizzaProtocol
import PizzaTesting
import SQLite
import Testing

@testable import PizzaDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// The writer's outcomes handed back to a connection's loop (`AnswerHandBack`), on a real SwiftNIO channel over one
/// end of a socket pair, the test holding the other as a client would: every change is answered, in order, and a
/// connection's handler is let go once its last change is answered, also when the client left before that.
@Suite("Answers handed back to the loop", .serialized)
struct AnswerHandBackTests {
    /// Holds the connection's handler weakly, so that the test sees when nothing else holds it.
    final class HandlerProbe: Sendable {
        private let held = Locked<Weak>(Weak())
        struct Weak { weak var handler: ConnectionHandler? }

        func hold(_ handler: ConnectionHandler) { held.withLock { $0.handler = handler } }
        var isReleased: Bool { held.withLock { $0.handler == nil } }
    }

    /// A connection served as the control socket serves one, on a loop of `group`: the client's descriptor, and
    /// what counts the connection's requests under way.
    static func connect(
        _ daemon: InProcessDaemon, group: MultiThreadedEventLoopGroup, probe: HandlerProbe
    ) async throws -> (client: Int32, tracker: ConnectionTracker) {
        var descriptors: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        let loop = group.next()
        let handBack = AnswerHandBack(eventLoop: loop)
        let tracker = ConnectionTracker { _ in }
        let state = daemon.state
        let dispatcher = daemon.dispatcher
        _ = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = ConnectionHandler(
                        dispatcher: dispatcher, state: state, tracker: tracker, handBack: handBack)
                    try channel.pipeline.syncOperations.addHandler(handler)
                    probe.hold(handler)
                }
            }
            .withConnectedSocket(descriptors[1]).get()
        // The client's reads give up after 10 s, so that a lost answer fails a test rather than hanging it.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        let timeoutSet = setsockopt(
            descriptors[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #expect(timeoutSet == 0)
        return (descriptors[0], tracker)
    }

    static func createLine(id: Int, ref: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"order.create","params":{"ref":"\#(ref)","items":[{"kind":"cheese"}],"place":true}}"#
            + "\n"
    }

    static func send(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// Waits until `condition` holds, for at most 10 s.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test("pipelined changes are answered in order, and the handler is let go after the connection closes")
    func answeredInOrder() async throws {
        let daemon = try await InProcessDaemon()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let probe = HandlerProbe()
        let (client, tracker) = try await Self.connect(daemon, group: group, probe: probe)
        Self.send((1...20).map { Self.createLine(id: $0, ref: "in-order-\($0)") }.joined(), to: client)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while received.filter({ $0 == 0x0A }).count < 20 {
            let count = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        let ids = String(decoding: received, as: UTF8.self).split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
        }
        #expect(ids == (1...20).map { $0 })
        #expect(tracker.requestsInFlight == 0)
        close(client)
        #expect(try await Self.eventually { probe.isReleased }, "the handler outlived its connection")
        try await group.shutdownGracefully()
    }

    @Test("a client that leaves with a change under way and one queued: the first is kept, and the handler let go")
    func clientLeavesFirst() async throws {
        let daemon = try await InProcessDaemon()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let probe = HandlerProbe()
        let (client, tracker) = try await Self.connect(daemon, group: group, probe: probe)
        // One round trip first, so that the peer is known and the next lines start as they arrive.
        Self.send(Self.createLine(id: 0, ref: "left-0"), to: client)
        var answer = [UInt8](repeating: 0, count: 4096)
        #expect(answer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) } > 0)
        // Two more, and gone at once: the channel (no half-closure here) closes at the end of the input while the
        // first waits at the writer (another program holds the write lock for half a second) and the second behind
        // it. The first is committed and handed back after the handler was removed; the second is not started, as
        // nobody can read its answer (a till that was not answered sends it again, under the same ref).
        let other = try Database(path: daemon.folder.path + "/pizzad.sqlite")
        try other.execute("BEGIN IMMEDIATE")
        Self.send(Self.createLine(id: 1, ref: "left-1") + Self.createLine(id: 2, ref: "left-2"), to: client)
        close(client)
        try await Task.sleep(for: .milliseconds(500))
        try other.execute("ROLLBACK")
        #expect(try await Self.eventually { probe.isReleased }, "the handler outlived its connection")
        // Whatever ran was finished: shutdown does not wait on a request nobody will answer.
        #expect(tracker.requestsInFlight == 0)
        let first = try await daemon.request(
            #"{"jsonrpc":"2.0","id":9,"method":"order.get","params":{"ref":"left-1"}}"#)
        #expect(first.result?["ref"] as? String == "left-1", "\(first)")
        let second = try await daemon.request(
            #"{"jsonrpc":"2.0","id":10,"method":"order.get","params":{"ref":"left-2"}}"#)
        #expect(second.errorCode == 1001, "\(second)")
        try await group.shutdownGracefully()
    }
}
