import NIOCore
import Testing

@testable import PizzaDaemon

/// A ``ConnectionState`` in a box, so that `#expect` can call its mutating methods, with lines as text.
private final class Connection {
    var state = ConnectionState()

    func known() { state.peer = Peer(uid: 0, gid: 0, pid: 1) }
    func received(_ text: String) -> ConnectionState.Arrival { state.received(ByteBuffer(string: text)) }
    func next(writable: Bool = true) -> String? { state.nextLine(writable: writable).map { String(buffer: $0) } }
    func readRequested(writable: Bool = true) -> Bool { state.readRequested(writable: writable) }
    func resumeReading(writable: Bool = true) -> Bool { state.resumeReading(writable: writable) }
    func closeIfDone() -> Bool { state.closeIfDone() }
}

/// The connection's rules as a value, without a channel. The same rules over a real socket are in
/// PizzaDaemonTests (hostile clients, backpressure, `socat` closing its side).
@Suite("A connection's state, without a channel")
struct ConnectionStateTests {
    @Test("nothing runs before the peer is known; then requests run one at a time, in order, while answers can be sent")
    func oneAtATime() {
        let connection = Connection()
        #expect(connection.received("a") == .queued(start: false))
        #expect(connection.next() == nil, "the peer is not known yet")
        connection.known()
        #expect(connection.next(writable: false) == nil, "answers cannot be sent")
        #expect(connection.received("b") == .queued(start: true))
        #expect(connection.next() == "a")
        connection.state.began()
        #expect(connection.received("c") == .queued(start: false), "a request is running")
        #expect(connection.next() == nil)
        connection.state.finished()
        #expect(connection.next() == "b")
        #expect(connection.next() == "c")
        #expect(connection.next() == nil)
    }

    @Test("blank lines are skipped")
    func blankLines() {
        let connection = Connection()
        connection.known()
        for text in ["  ", "\t", "x"] { _ = connection.received(text) }
        #expect(connection.next() == "x")
    }

    @Test(
        "reading pauses at 128 waiting requests or while answers cannot be sent, and the held read is made once both cleared"
    )
    func backpressure() {
        let connection = Connection()
        #expect(connection.readRequested())
        #expect(!connection.readRequested(writable: false))
        #expect(!connection.resumeReading(writable: false))
        #expect(connection.resumeReading())
        #expect(!connection.resumeReading(), "the held read is made once")
        for index in 0..<RequestQueue.pauseReadingAt { _ = connection.received("\(index)") }
        #expect(!connection.readRequested())
        connection.known()
        #expect(connection.next() == "0")
        #expect(connection.resumeReading())
    }

    @Test("past the queue's capacity a line is refused as overloaded, and nothing is queued")
    func capacity() {
        let connection = Connection()
        for index in 0..<RequestQueue.capacity { _ = connection.received("\(index)") }
        #expect(connection.received("one more") == .overloaded)
        connection.known()
        var count = 0
        while connection.next() != nil { count += 1 }
        #expect(count == RequestQueue.capacity)
    }

    @Test(
        "after the client shuts its side, the connection closes once everything sent was answered, not while it watches"
    )
    func closesWhenDone() {
        let connection = Connection()
        connection.known()
        _ = connection.received("a")
        connection.state.inputDidClose()
        #expect(!connection.closeIfDone(), "a request waits")
        _ = connection.next()
        connection.state.began()
        #expect(!connection.closeIfDone(), "a request runs")
        connection.state.finished()
        connection.state.watching = true
        #expect(!connection.closeIfDone(), "an event stream holds it open")
        connection.state.watching = false
        #expect(connection.closeIfDone())
        #expect(!connection.closeIfDone(), "closed once")
        #expect(connection.received("late") == .ignored)
        #expect(connection.next() == nil)
    }
}
