import DaemonHarness
import Foundation
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

/// The board's HTTP listener without a browser: what it serves, how its stream resumes, and the same hardening as
/// the metrics endpoint (the two share `HTTPEndpoint` and `HTTPRequestGuard`), in the test's process.
@Suite("The kitchen's board listener: the page, the event stream, bad input", .serialized, .offThePool)
struct BoardEndpointTests {
    func start(_ extra: String = "", directory: String? = nil) throws -> (LiveDaemon, Int) {
        let daemon = try LiveDaemon(config: "board:\n  listen: 127.0.0.1:0\n" + extra, directory: directory)
        let port = try #require(daemon.boardPort, "no 'serving board' line in:\n\(daemon.output)")
        return (daemon, port)
    }

    /// Opens the event stream (with `Last-Event-ID` when given); once its opening has come (the snapshot, or the
    /// `retry:` line of a resumed stream) runs `during`, then reads until `marker` has come (at most 30 s each), then
    /// for `seconds` more: what else came then, which should not have, is in the text too.
    func events(
        port: Int, lastEventID: Int? = nil, until marker: String, seconds: Double = 0.5,
        during: () throws -> Void = {}
    ) throws -> String {
        let connection = try HTTPConnection(port: port)
        let resume = lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
        try connection.send("GET /board/events HTTP/1.1\r\nHost: kitchen\r\n\(resume)\r\n")
        let opening = connection.readUntilClosed(timeout: 30, orSeen: lastEventID == nil ? "\"orders\":[" : "retry:")
        try during()
        var text = opening.text
        if !text.contains(marker) { text += connection.readUntilClosed(timeout: 30, orSeen: marker).text }
        return text + connection.readUntilClosed(timeout: seconds).text
    }

    @Test(
        "GET /board is the self-contained page; /board/events opens with a snapshot, then each change with its sequence number; Last-Event-ID resumes after it without a snapshot"
    )
    func stream() throws {
        let (daemon, port) = try start()
        let page = try httpGet(port: port, "/board")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8", "\(page)")
        #expect(page.body.contains("new EventSource(\"/board/events\")"))
        #expect(
            !page.body.contains("http://") && !page.body.contains("https://"), "the page loads something from elsewhere"
        )
        #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        #expect(try daemon.pizzactl(["order", "new", "--customer", "Ada", "--place", "cheese"]).status == 0)
        let opening = try events(port: port, until: "\"status\":\"preparing\"") {
            let advanced = try daemon.pizzactl(["order", "advance", "1"]).status
            #expect(advanced == 0)
        }
        #expect(
            opening.contains("content-type: text/event-stream") || opening.contains("Content-Type: text/event-stream"))
        #expect(opening.contains("id: 1\nevent: snapshot\ndata: {\"seq\":1,"), "\(opening)")
        #expect(opening.contains("\"customer\":\"Ada\""))
        #expect(opening.contains("id: 2\nevent: order\ndata: {\"seq\":2,"), "\(opening)")
        #expect(opening.contains("\"status\":\"preparing\""))
        // A browser back after a restart: the changes after the one it had, no snapshot.
        #expect(try daemon.pizzactl(["order", "advance", "1"]).status == 0)
        let resumed = try events(port: port, lastEventID: 2, until: "id: 3\nevent: order")
        #expect(!resumed.contains("event: snapshot") && resumed.contains("id: 3\nevent: order"), "\(resumed)")
        #expect(!resumed.contains("id: 2\n"), "\(resumed)")
        #expect(try daemon.stop() == 0)
    }

    @Test(
        "board.showCustomer: false leaves names out of the snapshot and the events; marks come from the configuration")
    func hiddenNames() throws {
        let (daemon, port) = try start("  showCustomer: false\n  baking:\n    warnSeconds: 60\n    lateSeconds: 90\n")
        #expect(try daemon.pizzactl(["order", "new", "--customer", "Ada Lovelace", "--place", "cheese"]).status == 0)
        let stream = try events(port: port, until: "id: 2\nevent: order") {
            let created = try daemon.pizzactl(["order", "new", "--customer", "Bo", "--place", "cheese"]).status
            #expect(created == 0)
        }
        #expect(
            !stream.contains("Ada") && !stream.contains("\"Bo\"") && stream.contains("\"customer\":null"), "\(stream)")
        #expect(stream.contains("\"showCustomer\":false") && stream.contains("\"baking\":[60,90]"), "\(stream)")
        #expect(try daemon.stop() == 0)
        let refused = try LiveDaemon(
            config: "board:\n  placed:\n    warnSeconds: 900\n    lateSeconds: 600\n", wait: false)
        #expect(try refused.waitForExit() == 78)
        #expect(refused.output.contains("board.placed.warnSeconds"), "\(refused.output)")
    }

    @Test(
        "bad requests are answered as on the metrics endpoint: no write method, unknown paths, garbage, long lines, bodies; a browser that stops reading is dropped and the kitchen goes on"
    )
    func badRequests() async throws {
        let (daemon, port) = try start()
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let write = try httpGet(port: port, "/board", method: method)
            #expect(write.status == 405 && write.headers["allow"] == "GET, HEAD", "\(write)")
        }
        #expect(try httpGet(port: port, "/board/events", method: "POST").status == 405)
        #expect(try httpGet(port: port, "/metrics").status == 404)
        #expect(try httpGet(port: port, "/board/../etc/passwd").status == 404)
        #expect(try httpGet(port: port, "/board", method: "HEAD").status == 200)

        let garbage = try HTTPConnection(port: port)
        try garbage.send("HELLO THERE\r\n\r\n")
        let (answer, closed) = garbage.readUntilClosed(timeout: 5)
        #expect(answer.hasPrefix("HTTP/1.1 400") && closed, "\(answer)")
        let long = try HTTPConnection(port: port)
        try? long.send("GET /board" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\n\r\n")
        let (tooLong, cut) = long.readUntilClosed(timeout: 5)
        #expect(tooLong.hasPrefix("HTTP/1.1 431") && cut, "\(tooLong.prefix(200))")
        let body = try HTTPConnection(port: port)
        try? body.send("GET /board HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "z", count: 64_000))
        let (bodyAnswer, bodyCut) = body.readUntilClosed(timeout: 5)
        #expect(bodyAnswer.contains("HTTP/1.1 413") && bodyCut, "\(bodyAnswer.prefix(300))")

        // A screen that opens the stream and never reads: once its socket buffers are full it is sent `dropped` and
        // closed; orders go on meanwhile.
        // Its receive window is kept small (as a tablet's would be) so that the kernel's buffers fill in a few
        // thousand events, not the tens of thousands loopback's autotuned buffers hold.
        let stuck = try HTTPConnection(port: port, receiveBuffer: 4096)
        try stuck.send("GET /board/events HTTP/1.1\r\nHost: kitchen\r\n\r\n")
        let note = String(repeating: "n", count: 1000)
        let created = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await ControlClient.withConnection(socket: daemon.socket, timeout: .seconds(60)) { connection in
                        while created.value < 30_000, !daemon.output.contains("dropped a slow board") {
                            _ = try await connection.call(
                                "order.create",
                                [
                                    ("note", .string(note)), ("items", [["kind": "cheese"], ["kind": "chicken"]]),
                                    ("place", true),
                                ])
                            created.withLock { $0 += 1 }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(
            daemon.output.contains("dropped a slow board"),
            "after \(created.value) orders: \(daemon.output.suffix(1000))")
        print("board endpoint: a stuck reader was dropped after \(created.value) orders")
        #expect(try httpGet(port: port, "/board").status == 200)
        #expect(try daemon.stop() == 0)
    }
}
