import Foundation
import PizzaCore
import PizzaTesting
import Testing

@testable import PizzaAPI

/// `GET /v1/events` with `Last-Event-ID` replays from the audit log, a page at a time (each written once the one
/// before has left: a slow reader holds the replay, not pizzad's memory); a device revoked while its
/// replay is read gets no more of it (issue 79, item 10).
@Suite("Order API: a revoked device's replay ends")
struct EventReplayTests {
    // 3,000 orders of 20 pizzas: some 12 MB of events, far more than loopback's buffers hold (a socket's send buffer
    // grows to megabytes at once there), so that what was sent before the revocation cannot be all of it.
    @Test("revoked during a Last-Event-ID replay of 3,000 large events: the stream ends before the rest is sent")
    func revokedDuringReplay() async throws {
        let fixture = try await APIFixture()
        let actor = ChangeActor(uid: 1, name: "test", pid: 1)
        let factory = PizzaFactory(menu: .standard)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let pizzas = try (0..<20).map { _ in try factory.makePizza("cheese") }
            for _ in 0..<3000 {
                group.addTask {
                    _ = try await fixture.orders.repository.create(pizzas: pizzas, currency: "EUR", by: actor)
                }
            }
            try await group.waitForAll()
        }
        try await fixture.live { port in
            let token = fixture.tokens[.kitchen]!
            // Connected, asked, and the first bytes read, on a thread of its own.
            let (socket, first) = try await RawHTTP.onThread { () throws -> (Int32, String) in
                // A minute to wait for bytes, not the default 10 s: in a loaded run this in-process server shares the
                // two cores and the cooperative pool with every other suite, and recv() once failed here (a timeout
                // between two pages, most likely; the expectation below now says which).
                let socket = try RawHTTP.connection(port: port, timeout: .seconds(60), receiveBuffer: 4096)
                let request = RawHTTP.request([
                    "GET /v1/events HTTP/1.1", "Host: shop", "Authorization: Bearer \(token)", "Last-Event-ID: 0",
                ])
                _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let received = recv(socket, &buffer, buffer.count, 0)
                return (socket, String(decoding: buffer[0..<max(0, received)], as: UTF8.self))
            }
            defer { close(socket) }
            #expect(first.hasPrefix("HTTP/1.1 200"), "\(first)")
            try await fixture.orders.store.revokeDevice(name: "kitchen-1")
            try fixture.api.reloadDevices()
            // What was already on its way, read to the end of the stream.
            let (rest, ended, failure) = try await RawHTTP.onThread { () -> (String, Bool, String) in
                var text = ""
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let received = recv(socket, &buffer, buffer.count, 0)
                    guard received > 0 else {
                        let failure = received < 0 ? String(cString: strerror(errno)) : ""
                        return (text, received == 0 || text.hasSuffix("0\r\n\r\n"), failure)
                    }
                    text += String(decoding: buffer[0..<received], as: UTF8.self)
                    if text.hasSuffix("0\r\n\r\n") { return (text, true, "") }
                }
            }
            let events = (first + rest).components(separatedBy: "id: ").count - 1
            #expect(ended, "the stream ended (recv: \(failure), \(rest.utf8.count) bytes after the revocation)")
            #expect(events < 3000, "\(events) of 3,000 events after the revocation")
        }
    }
}
