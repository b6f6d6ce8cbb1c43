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

    @Test(
        "a key kept past api.idempotencyHours is new: the same or another body makes a new order",
        arguments: [false, true])
    func expired(anotherBody: Bool) async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let first = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "old-key"),
                body: APIFixture.body(Self.order))
            #expect(first.status == .created)
            // 49 hours pass (the default keeps 48): the row is still there until a sweep takes it.
            try fixture.write(
                "UPDATE api_requests SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-49 hours')")
            let body = anotherBody ? #"{"items":[{"kind":"cheese"}]}"# : Self.order
            let again = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "old-key"),
                body: APIFixture.body(body))
            #expect(again.status == .created, "\(again.status) \(String(buffer: again.body))")
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            #expect(again.headers[.location] == "/v1/orders/2")
            // And it is kept anew: a retry now replays the second order.
            let retry = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "old-key"),
                body: APIFixture.body(body))
            #expect(retry.headers[.location] == "/v1/orders/2" && retry.body == again.body)
        }
        #expect(try fixture.orderCount() == 2)
        #expect(try fixture.orders.store.verifyAudit().ok)
    }

    @Test("a retry after the menu changed finds its order: the key is looked up before the body is checked")
    func keyBeforeBody() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let first = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "before-reload"),
                body: APIFixture.body(Self.order))
            #expect(first.status == .created)
            fixture.menu.withLock { $0.kinds.removeAll { $0.name == "chicken" } }
            let retry = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "before-reload"),
                body: APIFixture.body(Self.order))
            #expect(retry.status == .created, "\(retry.status) \(String(buffer: retry.body))")
            #expect(retry.body == first.body)
            // A new key with that body is checked against today's menu.
            let new = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "after-reload"),
                body: APIFixture.body(Self.order))
            #expect(new.status == .badRequest && new.problem == "validation")
        }
        #expect(try fixture.orderCount() == 1)
    }

    @Test("requests with one key at once: one order; each other answer is the first replayed or 409 in use")
    func concurrent() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            for round in 0..<20 {
                let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, Bool).self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            let response = try await client.execute(
                                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "same-\(round)"),
                                body: APIFixture.body(Self.order))
                            return (
                                response.status,
                                response.headers[HTTPField.Name("Idempotent-Replayed")!] == "true"
                            )
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let made = statuses.filter { $0.0 == .created && !$0.1 }.count
                #expect(made == 1, "round \(round): \(statuses)")
                #expect(statuses.allSatisfy { $0.0 == .created || $0.0 == .conflict }, "round \(round): \(statuses)")
            }
        }
        #expect(try fixture.orderCount() == 20)
    }

    @Test("replays of a kept key at once are each answered with the first answer, none 409")
    func concurrentReplays() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let first = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "kept"),
                body: APIFixture.body(Self.order))
            #expect(first.status == .created)
            let replays = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await client.execute(
                            uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "kept"),
                            body: APIFixture.body(Self.order))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replays.allSatisfy { $0.status == .created && $0.body == first.body }, "\(replays.map(\.status))")
        }
        #expect(try fixture.orderCount() == 1)
    }
}
