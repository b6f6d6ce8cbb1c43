import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PizzaCore
import Testing

@testable import PizzaAPI

/// Every number and length the order API takes from the network, at its extremes: each is answered with an error
/// (a 4xx, never a 500) or served, and pizzad keeps serving; none traps (a trap stops the process, this test's
/// included).
@Suite("Order API: extreme values in every header and parameter")
struct ExtremeInputTests {
    /// `Int64.min`, `Int64.max` and one past it, 10,000 digits, empty, signs and spaces, and non-ASCII digits.
    static let extremes: [String] = [
        String(Int64.min), String(Int64.max), "9223372036854775808", "-9223372036854775809",
        String(repeating: "9", count: 10_000), "", "-0", "+1", " 1", "1e9", "0x10", "٣٣", "１２", "Ω",
    ]

    static let order = #"{"items":[{"kind":"cheese"}]}"#

    /// Standard Webhooks headers with `timestamp` as given, over an order, with a signature that cannot match.
    static func signed(id: String = "msg_1", timestamp: String, signature: String = "v1,AA") -> HTTPFields {
        [
            HTTPField.Name("webhook-id")!: id, HTTPField.Name("webhook-timestamp")!: timestamp,
            HTTPField.Name("webhook-signature")!: signature,
        ]
    }

    @Test("webhook-timestamp, webhook-id and webhook-signature at their extremes: 401, and the API still serves")
    func signatureHeaders() async throws {
        // Failures are counted by address: the allowance here is what the test sends, not the lockout's subject.
        let fixture = try await APIFixture(
            settings: APISettings(host: "127.0.0.1", port: 0, failedAuthenticationsAllowed: 1000))
        try await fixture.test { client in
            for value in Self.extremes {
                for (path, method) in [("/v1/menu", HTTPRequest.Method.get), ("/v1/orders", .post)] {
                    for headers in [
                        Self.signed(timestamp: value), Self.signed(id: value, timestamp: Self.now),
                        Self.signed(timestamp: Self.now, signature: value),
                        Self.signed(timestamp: Self.now, signature: "v1," + value),
                    ] {
                        let response = try await client.execute(
                            uri: path, method: method, headers: headers, body: APIFixture.body(Self.order))
                        #expect(response.status == .unauthorized, "\(method) \(path) \(headers): \(response.status)")
                    }
                }
            }
            let served = try await client.execute(uri: "/v1/menu", method: .get, headers: fixture.headers(.till))
            #expect(served.status == .ok)
        }
    }

    static var now: String { String(Timestamp.now().millisecondsSince1970 / 1000) }

    @Test("Authorization, Idempotency-Key, If-None-Match and Content-Length at their extremes: a 4xx or served")
    func otherHeaders() async throws {
        let fixture = try await APIFixture(
            settings: APISettings(host: "127.0.0.1", port: 0, failedAuthenticationsAllowed: 1000))
        try await fixture.test { client in
            for (index, value) in Self.extremes.enumerated() {
                let bearer = try await client.execute(
                    uri: "/v1/menu", method: .get, headers: [.authorization: "Bearer \(value)"])
                #expect(bearer.status == .unauthorized, "Bearer \(value): \(bearer.status)")
                var keyed = fixture.headers(.till)
                keyed[.idempotencyKey] = value
                let created = try await client.execute(
                    uri: "/v1/orders", method: .post, headers: keyed, body: APIFixture.body(Self.order))
                #expect(
                    created.status == .created || created.status == .badRequest,
                    "Idempotency-Key \(value.prefix(30)): \(created.status) \(String(buffer: created.body))")
                var matching = fixture.headers(.till)
                matching[.ifNoneMatch] = value
                let menu = try await client.execute(uri: "/v1/menu", method: .get, headers: matching)
                #expect(menu.status == .ok, "If-None-Match \(value.prefix(30)): \(menu.status)")
                var length = fixture.headers(.till, key: "length-\(index)")
                length[.contentLength] = value
                let sized = try await client.execute(
                    uri: "/v1/orders", method: .post, headers: length, body: APIFixture.body(Self.order))
                #expect(
                    (400..<500).contains(sized.status.code) || sized.status == .created,
                    "Content-Length \(value.prefix(30)): \(sized.status)")
            }
        }
    }

    @Test("an order's id, limit, after and Last-Event-ID at their extremes: 400 or 404, never 500")
    func parameters() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            _ = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "first"),
                body: APIFixture.body(Self.order))
            for value in Self.extremes {
                let escaped = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
                // An empty id is the list's path (`/v1/orders/`).
                for path in ["/v1/orders/\(escaped)", "/v1/orders/\(escaped)/place"] where !value.isEmpty {
                    let method: HTTPRequest.Method = path.hasSuffix("place") ? .post : .get
                    let response = try await client.execute(
                        uri: path, method: method, headers: fixture.headers(.till, key: "p-\(escaped.prefix(40))"),
                        body: method == .post ? APIFixture.body("{}") : nil)
                    #expect(
                        response.status == .notFound || response.status == .badRequest,
                        "\(method) \(path.prefix(60)): \(response.status)")
                }
                for name in ["limit", "after", "status", "since"] {
                    let response = try await client.execute(
                        uri: "/v1/orders?\(name)=\(escaped)", method: .get, headers: fixture.headers(.till))
                    #expect(
                        response.status == .ok || response.status == .badRequest,
                        "\(name)=\(value.prefix(30)): \(response.status) \(String(buffer: response.body).prefix(200))")
                }
                // Int64.max is an event's seq (nothing after it yet), a header's value is read without the spaces
                // around it, and an empty Last-Event-ID is none (a stream from now): those streams are served and
                // stay open.
                let trimmed = value.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { continue }
                if let seq = Int64(trimmed), seq >= 0 { continue }
                var headers = fixture.headers(.kitchen)
                headers[.lastEventID] = value
                let events = try await client.execute(uri: "/v1/events", method: .get, headers: headers)
                #expect(events.status == .badRequest, "Last-Event-ID \(value.prefix(30)): \(events.status)")
            }
        }
    }

    @Test("numbers in an order's body at their extremes: 400 validation naming the field, nothing written")
    func bodyNumbers() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            for value in [
                String(Int64.min), String(Int64.max), "9223372036854775808", String(repeating: "9", count: 10_000),
                "-1", "0", "1e300", "-1e300", "1.5",
            ] {
                for body in [
                    #"{"items":[{"kind":"cheese","quantity":\#(value)}]}"#,
                    #"{"items":[{"kind":"cheese"}],"customer":\#(value)}"#,
                ] {
                    let response = try await client.execute(
                        uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "b-\(value.prefix(30))"),
                        body: APIFixture.body(body))
                    #expect(response.status == .badRequest, "\(body.prefix(80)): \(response.status)")
                }
            }
            #expect(try fixture.orderCount() == 0)
        }
    }

    @Test("over a real connection: extreme headers on the on-loop path and the router, then a till still orders")
    func live() async throws {
        let fixture = try await APIFixture(
            settings: APISettings(host: "127.0.0.1", port: 0, failedAuthenticationsAllowed: 1000))
        try await fixture.live { port in
            for value in Self.extremes {
                for (method, path) in [("GET", "/v1/menu"), ("POST", "/v1/orders")] {
                    let request = RawHTTP.request(
                        [
                            "\(method) \(path) HTTP/1.1", "Host: shop", "Connection: close",
                            "Content-Type: application/json", "Content-Length: \(Self.order.utf8.count)",
                            "webhook-id: x", "webhook-timestamp: \(value)", "webhook-signature: v1,AA",
                        ], body: Self.order)
                    let answer = try await RawHTTP.exchange(port: port, request)
                    #expect(RawHTTP.status(answer) == 401, "\(method) \(path) timestamp \(value.prefix(30))")
                }
                let length = RawHTTP.request(
                    [
                        "POST /v1/orders HTTP/1.1", "Host: shop", "Connection: close",
                        "Authorization: Bearer \(fixture.tokens[.till]!)", "Content-Type: application/json",
                        "Idempotency-Key: cl-\(value.prefix(20))", "Content-Length: \(value)",
                    ], body: Self.order)
                // A length the parser takes (`+1`) leaves the server waiting for the rest of a body, as it should.
                let answer = try await RawHTTP.exchange(port: port, length, timeout: .seconds(2))
                let status = RawHTTP.status(answer)
                #expect(
                    status == nil || (400..<500).contains(status!) || status == 201,
                    "Content-Length \(value.prefix(30)): \(answer.prefix(120))")
            }
            let order = RawHTTP.request(
                [
                    "POST /v1/orders HTTP/1.1", "Host: shop", "Connection: close",
                    "Authorization: Bearer \(fixture.tokens[.till]!)", "Content-Type: application/json",
                    "Idempotency-Key: after-the-storm", "Content-Length: \(Self.order.utf8.count)",
                ], body: Self.order)
            #expect(RawHTTP.status(try await RawHTTP.exchange(port: port, order)) == 201)
        }
    }
}
