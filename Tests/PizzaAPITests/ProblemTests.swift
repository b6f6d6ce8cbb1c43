import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PizzaHTTPEdges
import PizzaProtocol
import PizzaWire
import Testing

@testable import PizzaAPI

/// What an error answers as: CONTRACT section 15's problem types.
@Suite("Order API: problems")
struct ProblemTests {
    struct Secret: Error, CustomStringConvertible {
        var description: String { "SQLITE_IOERR at /var/lib/pizzad/pizzad.sqlite, key sk_live_123" }
    }

    @Test(
        "an internal error answers 500 internal_error with a request id and no internal text; the log has both",
        arguments: [Secret() as any Error, RPCError(.internalError, Secret().description)])
    func internalError(error: any Error) throws {
        let problem = Problem.from(error)
        let answer = problem.answer
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == .internalServerError && problem.name == "internal_error")
        #expect(!text.contains("SQLITE") && !text.contains("pizzad.sqlite") && !text.contains("sk_live"), "\(text)")
        let body = try JSONParser.parse(answer.body)
        let id = try #require(body["requestId"]?.stringValue)
        #expect(id.count == 16 && body["detail"]?.stringValue?.contains(id) == true)
        // The log line: the error itself, and the id the answer carries.
        #expect(answer.failure?.contains("SQLITE_IOERR") == true && answer.failure?.contains(id) == true)
        // Each internal error its own id.
        #expect(Problem.from(error).requestId != id)
    }

    static let order = #"{"items":[{"kind":"cheese"}]}"#

    @Test(
        "a change's body sent as anything but JSON is 415 unsupported_media_type, nothing written; JSON or none is read"
    )
    func mediaType() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            for (index, type) in ["application/x-www-form-urlencoded", "text/plain", "application/jsonx"].enumerated() {
                var headers = fixture.headers(.till, key: "form-\(index)")
                headers[.contentType] = type
                let refused = try await client.execute(
                    uri: "/v1/orders", method: .post, headers: headers, body: APIFixture.body(Self.order))
                #expect(
                    refused.status == .unsupportedMediaType && refused.problem == "unsupported_media_type", "\(type)")
            }
            for (index, type) in ["application/json; charset=utf-8", "Application/JSON", nil].enumerated() {
                var headers = fixture.headers(.till, key: "json-\(index)")
                headers[.contentType] = type
                let made = try await client.execute(
                    uri: "/v1/orders", method: .post, headers: headers, body: APIFixture.body(Self.order))
                #expect(made.status == .created, "\(type ?? "none"): \(made.status)")
            }
        }
        #expect(try fixture.orderCount() == 3)
        // The on-loop path answers the same.
        try await fixture.live { port in
            let request = RawHTTP.request(
                [
                    "POST /v1/orders HTTP/1.1", "Host: shop", "Connection: close",
                    "Authorization: Bearer \(fixture.tokens[.till]!)", "Content-Type: text/plain",
                    "Idempotency-Key: loop-form", "Content-Length: \(Self.order.utf8.count)",
                ], body: Self.order)
            let answer = try await RawHTTP.exchange(port: port, request)
            #expect(RawHTTP.status(answer) == 415, "\(answer.prefix(200))")
        }
        #expect(try fixture.orderCount() == 3)
    }
}
