import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PizzaAPI
import PizzaCore
import PizzaStorage
import Testing

/// `Idempotency-Key` as CONTRACT section 15 has it: the first answer again, status and body, with no second write;
/// another body 422; missing on create 400; a ref another key used 409 `ref_in_use`.
@Suite("Order API: idempotency keys")
struct IdempotencyTests {
    static let order = #"{"customer":"Zoë","items":[{"kind":"chicken","size":"L","extras":["olives"]}],"place":true}"#

    @Test("the same key and body: the first answer again, marked replayed, and one order in the database")
    func replay() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let first = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "order-1"),
                body: APIFixture.body(Self.order))
            #expect(first.status == .created, "\(String(buffer: first.body))")
            #expect(first.headers[.location] == "/v1/orders/1")
            let again = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "order-1"),
                body: APIFixture.body(Self.order))
            #expect(again.status == .created)
            #expect(again.body == first.body, "the first answer, byte for byte")
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(again.headers[.location] == "/v1/orders/1")
        }
        #expect(try fixture.orderCount() == 1)
        let audit = try fixture.orders.store.auditEntries()
        #expect(audit.count == 1 && audit[0].actor.device == "till-1" && audit[0].actor.address == "local")
        #expect(try fixture.orders.store.verifyAudit().ok)
    }

    @Test("the same key with another body is 422 idempotency_key_reused, and nothing is written")
    func reused() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            _ = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "k"),
                body: APIFixture.body(Self.order))
            let other = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "k"),
                body: APIFixture.body(#"{"items":[{"kind":"cheese"}]}"#))
            #expect(other.status == .unprocessableContent && other.problem == "idempotency_key_reused")
            #expect(other.headers[.contentType] == "application/problem+json")
        }
        #expect(try fixture.orderCount() == 1)
    }

    @Test("a create without a key is 400 idempotency_key_missing; a key that is not visible ASCII is 400")
    func missing() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let none = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till), body: APIFixture.body(Self.order))
            #expect(none.status == .badRequest && none.problem == "idempotency_key_missing")
            let bad = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "two words"),
                body: APIFixture.body(Self.order))
            #expect(bad.status == .badRequest && bad.problem == "validation")
        }
        #expect(try fixture.orderCount() == 0)
    }

    @Test("keys are per device: the same key from two tills makes two orders")
    func perDevice() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            for role in [DeviceRole.till, .platform] {
                let made = try await client.execute(
                    uri: "/v1/orders", method: .post, headers: fixture.headers(role, key: "same"),
                    body: APIFixture.body(Self.order))
                #expect(made.status == .created)
            }
        }
        #expect(try fixture.orderCount() == 2)
    }

    @Test("a ref another key already used is 409 ref_in_use, without the other order's data")
    func refInUse() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let body = #"{"ref":"table-7","customer":"Łukasz","items":[{"kind":"cheese"}]}"#
            let first = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "a"), body: APIFixture.body(body)
            )
            #expect(first.status == .created)
            for (role, key) in [(DeviceRole.till, "b"), (.platform, "a")] {
                let taken = try await client.execute(
                    uri: "/v1/orders", method: .post, headers: fixture.headers(role, key: key),
                    body: APIFixture.body(body))
                #expect(taken.status == .conflict && taken.problem == "ref_in_use", "\(role)")
                #expect(!String(buffer: taken.body).contains("Łukasz"), "no data of the other order")
            }
        }
        #expect(try fixture.orderCount() == 1)
    }

    @Test("a change with a key (place, advance, cancel) is answered again from its key, not made twice")
    func changes() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            _ = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "new"),
                body: APIFixture.body(#"{"items":[{"kind":"cheese"}]}"#))
            for _ in 0..<2 {
                let placed = try await client.execute(
                    uri: "/v1/orders/1/place", method: .post, headers: fixture.headers(.till, key: "place"))
                #expect(placed.status == .ok && placed.json["status"]?.stringValue == "placed")
            }
            for _ in 0..<2 {
                let advanced = try await client.execute(
                    uri: "/v1/orders/1/advance", method: .post, headers: fixture.headers(.kitchen, key: "adv"),
                    body: APIFixture.body(#"{"from":"placed"}"#))
                #expect(advanced.status == .ok && advanced.json["status"]?.stringValue == "preparing")
            }
            // Without a key a second advance is a second change.
            let again = try await client.execute(
                uri: "/v1/orders/1/advance", method: .post, headers: fixture.headers(.kitchen),
                body: APIFixture.body(#"{"from":"placed"}"#))
            #expect(again.status == .conflict && again.problem == "conflict")
        }
        let actions = try fixture.orders.store.auditEntries().map(\.action)
        #expect(actions == ["created", "placed", "advanced"])
    }
}
