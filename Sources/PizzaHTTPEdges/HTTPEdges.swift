public import HTTPTypes
import PizzaCore
import PizzaProtocol
import PizzaWire

/// Everything the order API reads from a request before a handler runs, as one entry for the HTTP edges' fuzzer
/// (Tests/Fuzz, `@_spi(Fuzzing) import PizzaHTTPEdges`): the route and its id, the headers (Authorization, Idempotency-Key,
/// webhook-*, Last-Event-ID, If-None-Match, Content-Type) and the changes' bodies, each through the function the
/// server calls. It traps (`preconditionFailure`) only where the edges disagree with each other, which is what a
/// fuzzer should find; a refusal is an answer, not a finding.
@_spi(Fuzzing) public enum HTTPEdges {
    /// Reads a request of `method` to `path` with `headers` and `body` as the server would.
    public static func read(method: HTTPRequest.Method, path: String, headers: HTTPFields, body: [UInt8]) {
        // The route table: the fast path's change is the router's route for a POST, with the same id.
        let (routes, id) = APIRoute.routes(at: path)
        if let change = APIRoute.Match(change: path) {
            guard let routed = APIRoute.match(.post, path), routed.route.operation == change.route.operation,
                routed.id == change.id, routes.contains(where: { $0.operation == change.route.operation }),
                id == change.id
            else { preconditionFailure("the fast path and the router disagree on POST \(path)") }
        }
        _ = APIRoute.match(method, path)
        _ = headers.bearerToken
        _ = try? APIInput.idempotencyKey(headers)
        if let header = headers[.idempotencyKey] { _ = try? APIInput.checked(idempotencyKey: header) }
        _ = try? APIInput.lastEventID(headers[.lastEventID])
        _ = APIInput.matches(ifNoneMatch: headers[.ifNoneMatch], tag: "\"0123456789abcdef\"")
        _ = try? APIInput.checkMediaType(headers[.contentType])
        if let id = headers[.webhookID], let timestamp = headers[.webhookTimestamp],
            let signatures = headers[.webhookSignature]
        {
            let signature = RequestSignature(
                id: id, timestamp: timestamp, signatures: signatures.split(separator: " ").map(String.init),
                body: body)
            _ = signature.isFresh(now: Timestamp.now().millisecondsSince1970 / 1000)
            // Its HMAC (PizzaAPI's `isSigned(with:)`) is swift-crypto's, over bytes of any content: what is read
            // here is how the header's signatures split and compare.
            for signature in signature.signatures where signature.hasPrefix("v1,") {
                let expected = Array("K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=".utf8)
                _ = constantTimeEqual(Array(signature.utf8.dropFirst(3)), expected)
            }
        }
        // Each change's body as its route reads it, against the standard menu.
        let factory = PizzaFactory()
        if let params = try? APIInput.params(body) {
            _ = try? ChangeRequest.create(params, factory: factory)
            _ = try? ChangeRequest.cancel(order: 1, params)
            _ = try? params.status("from")
            _ = try? ChangeRequest.setFulfilment(order: 1, .object(params.members), factory: factory)
            _ = try? ChangeRequest.discount(order: 1, params)
            _ = try? ChangeRequest.pay(order: 1, params)
            _ = try? ChangeRequest.refund(order: 1, params)
        }
        _ = try? APIInput.params(body, empty: true)
        // A query string, as the list reads it.
        if let query = path.split(separator: "?", maxSplits: 1).dropFirst().first {
            let members = query.split(separator: "&").map { pair -> (String, JSONValue) in
                let parts = pair.split(separator: "=", maxSplits: 1)
                let name = String(parts.first ?? "")
                return (name, APIInput.queryValue(name, parts.count > 1 ? String(parts[1]) : ""))
            }
            let params = Params(members)
            _ = try? params.status("status")
            _ = try? params.int("limit").map { try OrderQuery.checkedLimit($0) }
            _ = try? params.timestamp("since")
            _ = try? params.fulfilmentType("type")
            _ = try? params.sort("sort")
        }
    }
}
