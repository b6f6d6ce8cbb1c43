import DaemonHarness
import Foundation
import PizzaTesting
import Testing

/// CONTRACT section 4: "An order carries id, ref, customer, note, status, items (each with its own id and price),
/// total, currency, createdAt, updatedAt, history". One wire form, whichever method sends the order.
@Suite("One wire form of an order", .offThePool)
struct WireFormTests {
    static let orderKeys: Set<String> = [
        "id", "ref", "customer", "note", "status", "fulfilment", "items", "subtotal", "discounts", "fees", "total",
        "taxes", "payments", "paid", "balance", "currency", "createdAt", "updatedAt", "history",
    ]
    static let itemKeys: Set<String> = [
        "id", "kind", "size", "crust", "chiliSauce", "ketchup", "extras", "quantity", "unitPrice", "price", "tax",
        "basisPoints",
    ]

    /// The JSON object on one line, re-serialised with sorted keys so two objects compare by content.
    static func canonical(_ object: Any?) throws -> String {
        let object = try #require(object)
        return String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test(
        "order.get, a live event, a replayed event and audit.list carry the same order, in CONTRACT's shape; entries in the old nested form read the same"
    )
    func oneForm() throws {
        let directoryFolder = try TemporaryFolder("pizzad-wire")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        var daemon = try LiveDaemon(directory: directory)
        let live = try RawConnection(path: daemon.socket)
        _ = try live.request(#"{"jsonrpc":"2.0","id":1,"method":"events.watch"}"#)
        let connection = try RawConnection(path: daemon.socket)
        let created = try connection.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.create","params":{"customer":"Zoë \"Z\" \\","note":"ring\ntwice","ref":"w-1","items":[{"kind":"chicken","size":"L","extras":["olives"],"quantity":2},{"kind":"cheese"}],"place":true}}"#
        )
        let order = try #require(created.result)
        #expect(Set(order.keys) == Self.orderKeys)
        let items = try #require(order["items"] as? [[String: Any]])
        #expect(items.count == 2 && items.allSatisfy { Set($0.keys) == Self.itemKeys }, "\(items)")
        #expect(items[0]["price"] as? Int == (items[0]["unitPrice"] as? Int ?? 0) * 2)
        #expect(order["total"] as? Int == items.reduce(0) { $0 + ($1["price"] as? Int ?? 0) })

        let got = try connection.request(#"{"jsonrpc":"2.0","id":3,"method":"order.get","params":{"id":1}}"#).result
        let event = try Self.object(try #require(try live.readLine()))
        let audit = try connection.request(#"{"jsonrpc":"2.0","id":4,"method":"audit.list"}"#).result
        let entry = try #require((audit?["entries"] as? [[String: Any]])?.first)
        let expected = try Self.canonical(order)
        #expect(try Self.canonical(got) == expected)
        #expect(try Self.canonical((event["params"] as? [String: Any])?["order"]) == expected, "\(event)")
        #expect(try Self.canonical(entry["after"]) == expected, "\(entry)")
        // The audit log stores that same text.
        let stored = try sqlite3(daemon.database, "SELECT after FROM audit_log WHERE seq = 1")
        #expect(try Self.canonical(try Self.object(stored)) == expected)
        #expect(try daemon.stop() == 0)

        // The same entry as pizzad before 0.2 wrote it: each pizza nested under "pizza", no price, no total.
        _ = try sqlite3(
            daemon.database,
            """
            DROP TRIGGER audit_log_no_update;
            UPDATE audit_log SET after = json_set(json_remove(after, '$.total'), '$.items', (
                SELECT json_group_array(json_object('id', json_extract(value, '$.id'), 'pizza',
                    json_remove(json_remove(value, '$.id'), '$.price')))
                FROM json_each(json_extract(after, '$.items')))) WHERE seq = 1;
            """)
        #expect(
            try sqlite3(
                daemon.database, "SELECT json_extract(after, '$.items[0].pizza.kind') FROM audit_log WHERE seq = 1")
                == "chicken")
        daemon = try LiveDaemon(directory: directory)
        let again = try RawConnection(path: daemon.socket)
        let listed = try again.request(#"{"jsonrpc":"2.0","id":5,"method":"audit.list"}"#).result
        #expect(try Self.canonical((listed?["entries"] as? [[String: Any]])?.first?["after"]) == expected)
        _ = try again.request(#"{"jsonrpc":"2.0","id":6,"method":"events.watch","params":{"after":0}}"#)
        let replayed = try Self.object(try #require(try again.readLine()))
        #expect(try Self.canonical((replayed["params"] as? [String: Any])?["order"]) == expected, "\(replayed)")
        #expect(try daemon.stop() == 0)
    }
}
