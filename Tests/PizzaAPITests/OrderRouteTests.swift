import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PizzaAPI
import PizzaCore
import PizzaStorage
import Testing

/// The routes' answers and their errors, each a clear problem with nothing half-written.
@Suite("Order API: routes and bad input")
struct OrderRouteTests {
    @Test("create, get with its ETag (304 when unchanged), list with paging, place, advance with from, cancel")
    func lifecycle() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            for index in 1...3 {
                let made = try await client.execute(
                    uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "o\(index)"),
                    body: APIFixture.body(#"{"customer":"Guest \#(index)","items":[{"kind":"chicken","size":"S"}]}"#))
                #expect(made.status == .created)
                #expect(made.json["total"]?.intValue == 850 && made.json["currency"]?.stringValue == "EUR")
            }
            let got = try await client.execute(uri: "/v1/orders/2", method: .get, headers: fixture.headers(.reader))
            let tag = try #require(got.headers[.eTag])
            var conditional = fixture.headers(.reader)
            conditional[.ifNoneMatch] = tag
            let same = try await client.execute(uri: "/v1/orders/2", method: .get, headers: conditional)
            #expect(same.status == .notModified && same.body.readableBytes == 0)
            let placed = try await client.execute(
                uri: "/v1/orders/2/place", method: .post, headers: fixture.headers(.till))
            #expect(placed.json["status"]?.stringValue == "placed")
            let changed = try await client.execute(uri: "/v1/orders/2", method: .get, headers: conditional)
            #expect(changed.status == .ok && changed.headers[.eTag] != tag)
            let page = try await client.execute(
                uri: "/v1/orders?limit=2", method: .get, headers: fixture.headers(.reader))
            #expect(page.json["orders"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [3, 2])
            let next = try #require(page.json["next"]?.intValue)
            let rest = try await client.execute(
                uri: "/v1/orders?limit=2&after=\(next)", method: .get, headers: fixture.headers(.reader))
            #expect(rest.json["orders"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [1])
            let placedOnly = try await client.execute(
                uri: "/v1/orders?status=placed", method: .get, headers: fixture.headers(.reader))
            #expect(placedOnly.json["orders"]?.arrayValue?.count == 1)
            let wrongFrom = try await client.execute(
                uri: "/v1/orders/2/advance", method: .post, headers: fixture.headers(.kitchen),
                body: APIFixture.body(#"{"from":"baking"}"#))
            #expect(wrongFrom.status == .conflict && wrongFrom.problem == "conflict")
            let cancelled = try await client.execute(
                uri: "/v1/orders/2/cancel", method: .post, headers: fixture.headers(.till),
                body: APIFixture.body(#"{"reason":"customer called"}"#))
            #expect(cancelled.json["status"]?.stringValue == "cancelled")
            let again = try await client.execute(
                uri: "/v1/orders/2/cancel", method: .post, headers: fixture.headers(.till),
                body: APIFixture.body(#"{"reason":"twice"}"#))
            #expect(again.status == .conflict && again.problem == "invalid_transition")
        }
        #expect(try fixture.orders.store.verifyAudit().ok)
    }

    @Test(
        "a body that is not an order, bad JSON, unknown fields and ids: 400 or 404 problems, nothing written",
        arguments: [
            ("/v1/orders", "not json", HTTPResponse.Status.badRequest, "validation"),
            ("/v1/orders", "[1,2]", .badRequest, "validation"),
            ("/v1/orders", #"{"pizza":"yes"}"#, .badRequest, "validation"),
            ("/v1/orders", #"{"items":[{"kind":"hawaii"}]}"#, .badRequest, "validation"),
            ("/v1/orders", #"{"items":[{"kind":"cheese","size":"XXL"}]}"#, .badRequest, "validation"),
            ("/v1/orders", #"{"items":[{"kind":"cheese","quantity":0}]}"#, .badRequest, "validation"),
            ("/v1/orders", #"{"place":true}"#, .badRequest, "validation"),
            ("/v1/orders", #"{"customer":12}"#, .badRequest, "validation"),
            ("/v1/orders", #"{"ref":"\u0000{x","items":[{"kind":"cheese"}]}"#, .badRequest, "validation"),
            ("/v1/orders/abc/place", "{}", .notFound, "not_found"),
            ("/v1/orders/99/place", "{}", .notFound, "not_found"),
            ("/v1/orders/1/cancel", "{}", .badRequest, "validation"),
            ("/v1/orders/1/cancel", #"{"reason":"   "}"#, .badRequest, "validation"),
            ("/v1/orders/1/advance", #"{"from":"lost"}"#, .badRequest, "validation"),
        ])
    func badInput(uri: String, body: String, status: HTTPResponse.Status, problem: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let role: DeviceRole = uri.hasSuffix("advance") ? .kitchen : .till
            let response = try await client.execute(
                uri: uri, method: .post, headers: fixture.headers(role, key: "bad"), body: APIFixture.body(body))
            #expect(response.status == status && response.problem == problem, "\(String(buffer: response.body))")
            #expect(response.headers[.contentType] == "application/problem+json")
        }
        #expect(try fixture.orderCount() == 0)
        #expect(try fixture.orders.store.auditEntries().isEmpty)
    }

    @Test("a body over 64 KiB is 413, and nothing is written")
    func oversize() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let note = String(repeating: "x", count: 70_000)
            let response = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "big"),
                body: APIFixture.body(#"{"note":"\#(note)"}"#))
            #expect(
                response.status == .contentTooLarge && response.problem == "validation",
                "\(response.status) \(String(buffer: response.body))")
        }
        #expect(try fixture.orderCount() == 0)
    }

    @Test("an unknown route is a problem too, never a stack trace")
    func unknownRoute() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let response = try await client.execute(uri: "/v2/orders", method: .get, headers: fixture.headers(.till))
            #expect(response.status == .notFound && response.headers[.contentType] == "application/problem+json")
        }
    }

    @Test(
        "the menu comes from the document's generated types: the menu's fields, and a problem for an Accept it cannot answer"
    )
    func menuFromTheDocument() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let menu = try await client.execute(uri: "/v1/menu", method: .get, headers: fixture.headers(.till))
            let text = String(buffer: menu.body)
            #expect(menu.status == .ok, "\(text)")
            for field in [#""currency":"EUR""#, #""kinds":["#, #""crusts":["#, #""sizes":["S","M","L","XL"]"#] {
                #expect(text.contains(field), "\(field) in \(text)")
            }
            var html = fixture.headers(.till)
            html[.accept] = "text/html"
            let refused = try await client.execute(uri: "/v1/menu", method: .get, headers: html)
            #expect(
                (400..<500).contains(refused.status.code)
                    && refused.headers[.contentType] == "application/problem+json", "\(refused.status)")
            let kitchen = try await client.execute(uri: "/v1/menu", method: .get, headers: fixture.headers(.kitchen))
            #expect(kitchen.status == .forbidden && String(buffer: kitchen.body).contains("permission_denied"))
        }
    }
}
