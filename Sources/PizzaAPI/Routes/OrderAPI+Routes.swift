import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

extension OrderAPI {
    /// `/v1/menu`, `/v1/orders…` and `/v1/openapi.yaml`.
    func addOrderRoutes(to router: Router<APIRequestContext>) {
        router.get("/v1/openapi.yaml") { [document] _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: document)))
        }
        router.post("/v1/orders") { request, context in try await self.change(.create, request, context) }
        router.get("/v1/orders") { request, context in
            let device = try context.identity(may: .read)
            let query = request.uri.queryParameters
            let params = Params(
                query.map { (String($0.key), Self.queryValue(String($0.key), String($0.value))) })
            try params.onlyKnown(["status", "limit", "after", "since"])
            if let after = try params.int("after"), after < 0 {
                throw Problem.validation("after is the next of a page before: a whole number from 0")
            }
            let page = try self.repository.list(
                OrderQuery(
                    status: try params.status("status"), since: try params.timestamp("since"),
                    limit: Int(try params.int("limit") ?? 50), after: try params.int("after")))
            var orders = page.orders
            if device.role.ownOrdersOnly {
                let own = try self.store.orders(createdBy: device.name, among: orders.map(\.id))
                orders = orders.filter { own.contains($0.id) }
            }
            var bytes: [UInt8] = []
            let list: JSONValue = ["orders": .array(orders.map(\.wire)), "next": .int(page.next)]
            list.write(into: &bytes)
            return Self.json(.ok, bytes)
        }
        router.get("/v1/orders/{id}") { request, context in
            let device = try context.identity(may: .read)
            let id = try Self.orderID(context)
            try self.checkOwner(device, id)
            let text = try self.repository.cart(id: id).wireText
            let tag = "\"" + InFlightKeys.fingerprint(method: "GET", path: "", body: Array(text.utf8)).prefix(32) + "\""
            if let match = request.headers[.ifNoneMatch],
                match.split(separator: ",").contains(where: {
                    $0.trimmingCharacters(in: .whitespaces) == tag || $0.trimmingCharacters(in: .whitespaces) == "*"
                })
            {
                return Response(status: .notModified, headers: [.eTag: tag])
            }
            var response = Self.json(.ok, Array(text.utf8))
            response.headers[.eTag] = tag
            return response
        }
        router.post("/v1/orders/{id}/place") { request, context in
            _ = try context.identity(may: .place)
            return try await self.change(.place(try Self.orderID(context)), request, context)
        }
        router.post("/v1/orders/{id}/advance") { request, context in
            _ = try context.identity(may: .advance)
            return try await self.change(.advance(try Self.orderID(context)), request, context)
        }
        router.post("/v1/orders/{id}/cancel") { request, context in
            _ = try context.identity(may: .cancel)
            return try await self.change(.cancel(try Self.orderID(context)), request, context)
        }
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

    /// A JSON object body as parameters; an empty body is `{}` where `empty` allows it.
    static func params(_ body: [UInt8], empty: Bool = false) throws -> Params {
        if empty, body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return Params() }
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw Problem.validation("the body is not JSON: \(error)")
        }
        guard let members = value.objectValue else { throw Problem.validation("the body must be a JSON object") }
        return Params(members)
    }

    static func orderID(_ context: APIRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw Problem.notFound("no order \(context.parameters.get("id") ?? "")")
        }
        return id
    }

    /// A query parameter as the socket's parameters type it: numbers as integers, the rest as text.
    static func queryValue(_ name: String, _ value: String) -> JSONValue {
        if name == "limit" || name == "after", let number = Int64(value) { return .int(number) }
        return .string(value)
    }
}

extension APIRequestContext {
    /// The device the request authenticated as, if its role has `right`; else 403 `permission_denied`.
    func identity(may right: DeviceRole.Right) throws -> DeviceIdentity {
        guard let identity else { throw Problem.unauthenticated("no device authenticated") }
        guard identity.may(right) else {
            throw Problem.denied(
                "device \(identity.name) is a \(identity.role.rawValue), which may not \(right.rawValue)")
        }
        return identity
    }
}

extension HTTPField.Name {
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}
