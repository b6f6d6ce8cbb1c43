import NIOCore
import PizzaHTTPEdges
import Testing

@testable import PizzaAPI

/// What the event loop's change handler reads from a `POST`'s path and writes back, byte by byte.
@Suite("Order API: a change's path and its answer's bytes")
struct ChangeRouteTests {
    @Test("the changing paths are known from the route table; anything else is the router's")
    func paths() {
        func change(_ path: String) -> String? {
            APIRoute.Match(change: path).map { "\($0.route.operation.rawValue) \($0.id.map(String.init) ?? "-")" }
        }
        #expect(change("/v1/orders") == "createOrder -")
        #expect(change("/v1/orders/7/place") == "placeOrder 7")
        #expect(change("/v1/orders/007/advance") == "advanceOrder 7")
        #expect(change("/v1/orders/9223372036854775807/cancel") == "cancelOrder 9223372036854775807")
        for other in [
            "/v1/orders/", "/v1/ordersX", "/v1/orders?x=1", "/v1/orders/0/place", "/v1/orders/-1/place",
            "/v1/orders/7", "/v1/orders/7/", "/v1/orders/7/place/", "/v1/orders/7/place?x=1", "/v1/orders/7/bake",
            "/v1/orders/9223372036854775808/place", "/v1/orders//place", "/v1/orders/7x/place", "/v1/menu", "",
            "/v1/Orders", "/v2/orders", "/v1/events", "/v1/openapi.yaml",
        ] {
            #expect(change(other) == nil, "\(other)")
        }
    }

    @Test("an answer's bytes: status line, its headers, Content-Length, Connection: close when closing, the body")
    func bytes() {
        var answer = APIAnswer.json(.created, Array(#"{"id":12}"#.utf8))
        answer.headers[.location] = "/v1/orders/12"
        let open = ChangesOnLoop.bytes(answer, false, ByteBufferAllocator())
        #expect(
            String(buffer: open)
                == "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nLocation: /v1/orders/12\r\n"
                + "Content-Length: 9\r\n\r\n{\"id\":12}")
        let empty = APIAnswer(status: .noContent, headers: [:], body: [])
        #expect(
            String(buffer: ChangesOnLoop.bytes(empty, true, ByteBufferAllocator()))
                == "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        let large = APIAnswer.json(.ok, Array(repeating: UInt8(ascii: "x"), count: 10_000))
        #expect(String(buffer: ChangesOnLoop.bytes(large, false, ByteBufferAllocator())).contains("Length: 10000\r\n"))
    }

    @Test("a request's fingerprint is SHA-256 over `METHOD PATH\\n` and the body, as kept keys were stored with")
    func fingerprint() {
        let body = Array(#"{"from":"open"}"#.utf8)
        #expect(
            InFlightKeys.fingerprint(method: "POST", path: "/v1/orders/7/place", body: body)
                == "ef45552379c23aae824392489663cc602dc5246ed5233f2ecc3e3b96f3136361")
    }
}
