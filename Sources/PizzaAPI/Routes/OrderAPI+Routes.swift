import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PizzaCore
import PizzaHTTPEdges
import PizzaProtocol
import PizzaStorage
import PizzaWire

extension OrderAPI {
    /// Registers the handler of every route of ``APIRoute/all`` but the generated ones (``DocumentRoutes``).
    func addRoutes(to router: Router<APIRequestContext>) {
        for route in APIRoute.all {
            guard let handler = handler(for: route) else { continue }
            router.on(RouterPath(route.path), method: route.method) { request, context in
                try await handler(request, context)
            }
        }
    }

    /// The handler of `route`; nil for one the generated server answers. Its right is checked before it runs
    /// (``RouteAccess``).
    func handler(for route: APIRoute)
        -> (@Sendable (Request, APIRequestContext) async throws -> Response)?
    {
        switch route.operation {
        case .getMenu: return nil
        case .getDocument:
            return { [document] _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/yaml"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: document)))
            }
        case .createOrder, .placeOrder, .advanceOrder, .cancelOrder, .setFulfilment, .payOrder, .discountOrder,
            .refundOrder:
            return { request, context in try await self.change(request, context) }
        case .listOrders: return { request, context in try await self.list(request, context) }
        case .getOrder: return { request, context in try await self.order(request, context) }
        case .watchEvents: return { request, context in try await self.events(request, context) }
        case .setAvailability: return { request, context in try await self.setAvailability(request, context) }
        case .getXReport: return { request, context in try await self.xReport(request, context) }
        case .closeDay: return { request, context in try await self.closeDay(request, context) }
        case .getZReport: return { request, context in try await self.zReport(request, context) }
        case .getDayPage:
            return { _, _ in
                Response(
                    status: .ok,
                    headers: [
                        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                        HTTPField.Name("Content-Security-Policy")!:
                            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
                    ],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: DayPage.html)))
            }
        }
    }

    /// `GET /v1/orders`: a page of orders, newest first (a platform's own only).
    func list(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let device = try context.device
        let query = request.uri.queryParameters
        let params = Params(query.map { (String($0.key), APIInput.queryValue(String($0.key), String($0.value))) })
        try params.onlyKnown(["status", "limit", "after", "since", "type", "sort"])
        if let after = try params.int("after"), after < 0 {
            throw Problem.validation("after is the next of a page before: a whole number from 0")
        }
        let page = try repository.list(
            OrderQuery(
                status: try params.status("status"), since: try params.timestamp("since"),
                limit: Int(try params.int("limit") ?? 50), after: try params.int("after"),
                type: try params.fulfilmentType("type"), sort: try params.sort("sort")))
        var orders = page.orders
        if device.role.ownOrdersOnly {
            let own = try store.orders(createdBy: device.name, among: orders.map(\.id))
            orders = orders.filter { own.contains($0.id) }
        }
        var bytes: [UInt8] = []
        let list: JSONValue = ["orders": .array(orders.map(\.wire)), "next": .int(page.next)]
        list.write(into: &bytes)
        return Self.json(.ok, bytes)
    }

    /// `GET /v1/orders/{id}`: the order, with an `ETag` (304 for a match).
    func order(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let device = try context.device
        let id = try Self.orderID(context)
        try checkOwner(device, id)
        let text = try repository.cart(id: id).wireText
        let tag = "\"" + InFlightKeys.fingerprint(method: "GET", path: "", body: Array(text.utf8)).prefix(32) + "\""
        if APIInput.matches(ifNoneMatch: request.headers[.ifNoneMatch], tag: tag) {
            return Response(status: .notModified, headers: [.eTag: tag])
        }
        var response = Self.json(.ok, Array(text.utf8))
        response.headers[.eTag] = tag
        return response
    }

    /// A platform reads and cancels only the orders it created: another's answers as if it did not exist.
    func checkOwner(_ device: DeviceIdentity, _ id: Int64) throws {
        guard device.role.ownOrdersOnly else { return }
        guard try store.creator(ofOrder: id) == device.name else { throw Problem.notFound("no order with id \(id)") }
    }

    static func json(_ status: HTTPResponse.Status, _ bytes: [UInt8]) -> Response {
        APIAnswer.json(status, bytes).response
    }

    /// The request's body, at most 64 KiB (the connection's ``RequestHeadDeadline`` closes it when the body does not
    /// arrive within ``APISettings/bodyTimeout``).
    static func body(of request: Request, _ context: APIRequestContext) async throws -> [UInt8] {
        Array(try await request.body.collect(upTo: context.maxUploadSize).readableBytesView)
    }

    /// The `{id}` of the request's path (``AllowedMethods`` read it); 404 when it is no positive whole number.
    static func orderID(_ context: APIRequestContext) throws -> Int64 {
        guard let id = context.route?.id else {
            throw Problem.notFound("no order \(context.parameters.get("id") ?? "")")
        }
        return id
    }
}

extension HTTPField.Name {
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}
