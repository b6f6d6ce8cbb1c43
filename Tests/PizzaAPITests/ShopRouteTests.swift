import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PizzaAPI
import PizzaCore
import PizzaStorage
import PizzaWire
import Testing

/// What belongs to the shop over the order API: "86" (CONTRACT section 17) and the day's reports (section 18).
@Suite("Order API: availability and the day's reports")
struct ShopRouteTests {
    @Test("86 over HTTP: a kitchen takes an item off, a till's order for it is 400 naming it, the menu says so")
    func availability() async throws {
        let fixture = try await APIFixture()
        fixture.menu.withLock { $0 = WholeOrderRouteTests.menu }
        try await fixture.test { client in
            let tillTries = try await client.execute(
                uri: "/v1/menu/items/cola-033/availability", method: .put, headers: fixture.headers(.till),
                body: APIFixture.body(#"{"available":false}"#))
            #expect(tillTries.status == .forbidden && tillTries.problem == "permission_denied")
            let off = try await client.execute(
                uri: "/v1/menu/items/cola-033/availability", method: .put, headers: fixture.headers(.kitchen),
                body: APIFixture.body(#"{"available":false}"#))
            #expect(off.status == .ok && off.json["available"]?.boolValue == false, "\(off.json)")
            let unknown = try await client.execute(
                uri: "/v1/menu/items/lemonade/availability", method: .put, headers: fixture.headers(.kitchen),
                body: APIFixture.body(#"{"available":false}"#))
            #expect(unknown.status == .notFound)
            let bad = try await client.execute(
                uri: "/v1/menu/items/cola-033/availability", method: .put, headers: fixture.headers(.kitchen),
                body: APIFixture.body(#"{"available":"no"}"#))
            #expect(bad.status == .badRequest && bad.problem == "validation")

            let refused = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "a1"),
                body: APIFixture.body(#"{"items":[{"kind":"cheese"},{"product":"cola-033"}],"place":true}"#))
            #expect(refused.status == .badRequest && refused.problem == "validation", "\(refused.json)")
            #expect(
                refused.json["item"]?.stringValue == "cola-033" && refused.json["reason"]?.stringValue == "unavailable")
            #expect(refused.json["field"]?.stringValue == "product")
            let menu = try await client.execute(uri: "/v1/menu", method: .get, headers: fixture.headers(.till))
            #expect(menu.json["unavailable"]?.arrayValue == [.string("cola-033")], "\(menu.json)")
            #expect(menu.json["products"]?[0]?["available"]?.boolValue == false)

            let on = try await client.execute(
                uri: "/v1/menu/items/cola-033/availability", method: .put, headers: fixture.headers(.manager),
                body: APIFixture.body(#"{"available":true}"#))
            #expect(on.status == .ok)
            let ordered = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "a2"),
                body: APIFixture.body(#"{"items":[{"kind":"cheese"},{"product":"cola-033"}],"place":true}"#))
            #expect(ordered.status == .created)
        }
    }

    @Test("the day's reports for a manager: X, Z (201, then 200 for its ref), Z by number; others are refused")
    func reports() async throws {
        let fixture = try await APIFixture()
        fixture.menu.withLock { $0 = WholeOrderRouteTests.menu }
        try await fixture.test { client in
            let made = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "o1"),
                body: APIFixture.body(WholeOrderRouteTests.delivery))
            let id = try #require(made.json["id"]?.intValue)
            _ = try await client.execute(
                uri: "/v1/orders/\(id)/payments", method: .post, headers: fixture.headers(.till, key: "p1"),
                body: APIFixture.body(#"{"tender":"cash","amount":2000}"#))
            for role in [DeviceRole.till, .kitchen, .reader, .platform] {
                let denied = try await client.execute(
                    uri: "/v1/reports/x", method: .get, headers: fixture.headers(role))
                #expect(denied.status == .forbidden, "\(role) read the X report")
            }
            let x = try await client.execute(uri: "/v1/reports/x", method: .get, headers: fixture.headers(.manager))
            #expect(x.status == .ok && x.json["number"]?.intValue == 1, "\(x.json)")
            #expect(x.json["placed"]?["gross"]?.intValue == 2000)
            #expect(x.json["tenders"]?[0]?["tender"]?.stringValue == "cash")
            #expect(x.json["channels"]?[0]?["channel"]?.stringValue == "till-1")

            let z = try await client.execute(
                uri: "/v1/reports/z", method: .post, headers: fixture.headers(.manager),
                body: APIFixture.body(#"{"ref":"2026-12-06"}"#))
            #expect(z.status == .created && z.json["number"]?.intValue == 1, "\(z.json)")
            #expect(z.headers[.location] == "/v1/reports/1")
            let again = try await client.execute(
                uri: "/v1/reports/z", method: .post, headers: fixture.headers(.manager),
                body: APIFixture.body(#"{"ref":"2026-12-06"}"#))
            #expect(again.status == .ok && again.json["lastSeq"] == z.json["lastSeq"])
            let got = try await client.execute(uri: "/v1/reports/1", method: .get, headers: fixture.headers(.manager))
            #expect(got.status == .ok && got.json == z.json)
            let missing = try await client.execute(
                uri: "/v1/reports/9", method: .get, headers: fixture.headers(.manager))
            #expect(missing.status == .notFound)
            let badBody = try await client.execute(
                uri: "/v1/reports/z", method: .post, headers: fixture.headers(.manager),
                body: APIFixture.body(#"{"ref":7}"#))
            #expect(badBody.status == .badRequest)
        }
    }
}
