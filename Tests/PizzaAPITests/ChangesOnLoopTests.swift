import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import PizzaCore
import PizzaStorage
import Testing

@testable import PizzaAPI

/// The on-loop fast path (``ChangesOnLoop``) driven through `NIOAsyncTestingChannel`: request parts in, the parts or
/// bytes it writes out, the real order API and SQLite store behind it, no socket and no TLS. What it answers itself,
/// what it hands on to the router (everything else), the order of a pipelined connection's answers, what waits
/// while a change is answered, and `Connection: close`.
@Suite("The on-loop fast path, through NIOAsyncTestingChannel")
struct ChangesOnLoopTests {
    static let order = #"{"items":[{"kind":"cheese"}],"place":true}"#

    /// A channel with the fast path alone (an HTTP/2 stream's shape: answers as parts), or after HTTP/1's response
    /// encoder (an HTTP/1.1 connection's: answers as bytes in the encoder's place).
    static func channel(_ fixture: APIFixture, http1: Bool = false) async throws -> (
        NIOAsyncTestingChannel, Locked<Int>
    ) {
        let told = Locked(0)
        let channel = NIOAsyncTestingChannel()
        let api = fixture.api
        // Made on the channel's loop, where the handlers live (neither is Sendable).
        try await channel.testingEventLoop.executeInContext {
            let pipeline = channel.pipeline.syncOperations
            if http1 { try pipeline.addHandler(HTTPResponseEncoder()) }
            try pipeline.addHandler(
                ChangesOnLoop(api: api, logger: Logger(label: "test")) { _ in told.withLock { $0 += 1 } })
        }
        try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 4000))
        return (channel, told)
    }

    static func post(
        _ fixture: APIFixture, _ path: String, key: String, body: String = order, close: Bool = false
    ) -> [HTTPRequestPart] {
        var fields = fixture.headers(.till, key: key)
        fields[.contentLength] = String(body.utf8.count)
        if close { fields[.connection] = "close" }
        return [
            .head(HTTPRequest(method: .post, scheme: "https", authority: "pizzad", path: path, headerFields: fields)),
            .body(ByteBuffer(string: body)), .end(nil),
        ]
    }

    /// The parts written out until an `.end` (the repository answers from its writer thread, then the loop writes),
    /// or a failure after 120 s: no answer is not a hang (and a loaded suite is not a failure).
    static func answer(_ channel: NIOAsyncTestingChannel) async throws -> (HTTPResponse, String) {
        try await within {
            var head: HTTPResponse?
            var body = ""
            while true {
                let part = try await channel.waitForOutboundWrite(as: HTTPResponsePart.self)
                switch part {
                case .head(let response): head = response
                case .body(let bytes): body += String(buffer: bytes)
                case .end: return (try #require(head), body)
                }
            }
        }
    }

    struct NoAnswer: Error {}

    /// `body`'s value, or ``NoAnswer`` after 120 s. Polled rather than raced in a task group: the testing channel's
    /// waits do not end when cancelled, and a group waits for its children.
    static func within<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let work = Task {
            do {
                let value = try await body()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        let limit = ContinuousClock.now + .seconds(120)
        while outcome.value == nil, ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(5)) }
        guard let result = outcome.value else {
            work.cancel()
            throw NoAnswer()
        }
        return try result.get()
    }

    @Test("a till's order is answered on the loop as parts: 201, the order, committed once; the listener told once")
    func answersAChange() async throws {
        let fixture = try await APIFixture()
        let (channel, told) = try await Self.channel(fixture)
        for part in Self.post(fixture, "/v1/orders", key: "loop-1") { try await channel.writeInbound(part) }
        let (response, body) = try await Self.answer(channel)
        #expect(response.status == .created, "\(body)")
        #expect(response.headerFields[.contentLength] == String(body.utf8.count))
        #expect(body.contains(#""status":"placed""#), "\(body)")
        // Nothing went on to the router.
        #expect(try await channel.readInbound(as: HTTPRequestPart.self) == nil)
        // The same key again: the first answer, no second order.
        for part in Self.post(fixture, "/v1/orders", key: "loop-1") { try await channel.writeInbound(part) }
        let (replayed, again) = try await Self.answer(channel)
        #expect(replayed.status == .created && again == body)
        #expect(try fixture.orders.store.countsByStatus().values.reduce(0, +) == 1)
        #expect(told.withLock { $0 } == 1)
        _ = try await channel.finish()
    }

    @Test("anything but a change goes on to the router; a change behind it too, until the router has answered")
    func pipelinedOrder() async throws {
        let fixture = try await APIFixture()
        let (channel, _) = try await Self.channel(fixture)
        let menu = HTTPRequest(
            method: .get, scheme: "https", authority: "pizzad", path: "/v1/menu", headerFields: fixture.headers(.till))
        try await channel.writeInbound(HTTPRequestPart.head(menu))
        try await channel.writeInbound(HTTPRequestPart.end(nil))
        // The GET is the router's, as it came.
        guard case .head(let forwarded)? = try await channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("the GET's head did not go on")
            return
        }
        #expect(forwarded.path == "/v1/menu")
        #expect(try await channel.readInbound(as: HTTPRequestPart.self) == .end(nil))
        // A change pipelined behind it, before the router answered: the router's too, so answers keep their order.
        for part in Self.post(fixture, "/v1/orders", key: "behind") { try await channel.writeInbound(part) }
        guard case .head(let behind)? = try await channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("the change behind an unanswered GET was answered out of order")
            return
        }
        #expect(behind.path == "/v1/orders")
        // Once the router's answers ended (both), the next change is answered here again.
        _ = try await channel.readInbound(as: HTTPRequestPart.self)
        _ = try await channel.readInbound(as: HTTPRequestPart.self)
        for _ in 0..<2 {
            try await channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try await channel.writeOutbound(HTTPResponsePart.end(nil))
            _ = try await channel.readOutbound(as: HTTPResponsePart.self)
            _ = try await channel.readOutbound(as: HTTPResponsePart.self)
        }
        for part in Self.post(fixture, "/v1/orders", key: "after") { try await channel.writeInbound(part) }
        let (response, _) = try await Self.answer(channel)
        #expect(response.status == .created)
        #expect(try await channel.readInbound(as: HTTPRequestPart.self) == nil)
        _ = try await channel.finish()
    }

    @Test("on HTTP/1.1 the answer is bytes in the encoder's place; Connection: close closes after it")
    func http1BytesAndClose() async throws {
        let fixture = try await APIFixture()
        let (channel, _) = try await Self.channel(fixture, http1: true)
        for part in Self.post(fixture, "/v1/orders", key: "bytes", close: true) { try await channel.writeInbound(part) }
        let written = try await Self.within { try await channel.waitForOutboundWrite(as: IOData.self) }
        guard case .byteBuffer(let bytes) = written else {
            Issue.record("not one buffer: \(written)")
            return
        }
        let text = String(buffer: bytes)
        #expect(text.hasPrefix("HTTP/1.1 201 Created\r\n"), "\(text.prefix(200))")
        #expect(text.contains("\r\nConnection: close\r\n\r\n{"), "\(text.prefix(400))")
        let closing = ContinuousClock.now + .seconds(120)
        while channel.isActive, ContinuousClock.now < closing { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!channel.isActive, "not closed after its answer")
    }

    @Test("a refused change is answered here with its problem: a wrong token 401, a bad body 400, nothing written")
    func refusals() async throws {
        let fixture = try await APIFixture()
        let (channel, _) = try await Self.channel(fixture)
        var parts = Self.post(fixture, "/v1/orders", key: "wrong")
        if case .head(var head) = parts[0] {
            head.headerFields[.authorization] = "Bearer pzd_wrong"
            parts[0] = .head(head)
        }
        for part in parts { try await channel.writeInbound(part) }
        let (unauthenticated, problem) = try await Self.answer(channel)
        #expect(unauthenticated.status == .unauthorized, "\(problem)")
        for part in Self.post(fixture, "/v1/orders", key: "bad", body: #"{"items":"#) {
            try await channel.writeInbound(part)
        }
        let (bad, why) = try await Self.answer(channel)
        #expect(bad.status == .badRequest && why.contains("validation"), "\(why)")
        #expect(try fixture.orders.store.countsByStatus().values.reduce(0, +) == 0)
        _ = try await channel.finish()
    }
}
