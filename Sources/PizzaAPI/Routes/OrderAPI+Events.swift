import HTTPTypes
import Hummingbird
import NIOCore
import PizzaCore
import PizzaHTTPEdges
import PizzaStorage
import PizzaWire

extension OrderAPI {
    /// `GET /v1/events`: every change as Server-Sent Events from the one fan-out; after `Last-Event-ID`, the changes
    /// since from the audit log first. A comment line every 15 s keeps proxies from closing a quiet stream.
    func events(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let device = try context.device
        let after = try APIInput.lastEventID(request.headers[.lastEventID])
        // Subscribed before the replay is read: a change in between arrives live and is skipped if replayed.
        let reader = self.events.subscribe(device: device.name)
        let store = self.store
        let events = self.events
        let directory = self.directory
        let body = ResponseBody { writer in
            do {
                try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                if let after {
                    var cursor = after
                    // A device revoked while its replay is read gets no more of it: the live stream ends for it
                    // (EventFanOut.revalidate), and the replay stops at the next page.
                    while directory.isActive(device.name) {
                        let entries = try store.auditEntries(after: cursor, limit: 500)
                        if entries.isEmpty { break }
                        var chunk = ByteBuffer()
                        for entry in entries {
                            if entry.orderID == nil, let kind = ShopChange.Kind(rawValue: entry.action) {
                                EventFanOut.write(
                                    seq: entry.seq, at: entry.at, kind: entry.action, member: kind.eventMember,
                                    text: entry.after, to: &chunk)
                                cursor = entry.seq
                                continue
                            }
                            let order = (try? Cart(wire: JSONParser.parse(entry.after)))?.wireText ?? entry.after
                            EventFanOut.write(
                                seq: entry.seq, at: entry.at, kind: entry.action, order: order, to: &chunk)
                            cursor = entry.seq
                        }
                        try await writer.write(chunk)
                        // The live events this replay sent are not sent again.
                        reader.skip(through: cursor)
                    }
                }
                // A comment every 15 s into the same stream: one loop writes, in order.
                let ticker = Task {
                    while !Task.isCancelled {
                        try await Task.sleep(for: .seconds(15))
                        reader.keepAlive()
                    }
                }
                defer { ticker.cancel() }
                // The stream ends with the reader's (revoked, dropped, or the daemon stopping). The fan-out hands
                // over a batch every few dozen milliseconds at full speed; what came since the last write goes
                // out in one.
                while let batches = await reader.next() { try await writer.write(contentsOf: batches) }
            } catch {
                events.remove(reader)
                throw error
            }
            events.remove(reader)
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"], body: body)
    }
}
