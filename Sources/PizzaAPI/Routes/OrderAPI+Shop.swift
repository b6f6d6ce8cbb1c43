import Foundation
import HTTPTypes
import Hummingbird
import PizzaCore
import PizzaHTTPEdges
import PizzaProtocol
import PizzaStorage
import PizzaWire

/// What belongs to the shop rather than to an order, over HTTP (CONTRACT sections 17-18): an item's availability
/// ("86", for the kitchen and the manager) and the day's reports (for the manager).
extension OrderAPI {
    /// `PUT /v1/menu/items/{item}/availability` `{"available": false}`: the item as it now is.
    func setAvailability(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let device = try context.device
        // The path is /v1/menu/items/{item}/availability: its fourth segment.
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        let item = segments.count == 6 ? String(segments[4]).removingPercentEncoding ?? "" : ""
        let menu = factory().menu
        guard menu.itemNames.contains(item) else {
            throw Problem.notFound("'\(item.prefix(64))' is no kind, product or extra on the menu")
        }
        let body = try await Self.body(of: request, context)
        try APIInput.checkMediaType(request.headers[.contentType])
        guard let object = (try? JSONParser.parse(body))?.objectValue,
            let available = object.first(where: { $0.0 == "available" })?.1.boolValue, object.count == 1
        else { throw Problem.validation("the body is {\"available\": true|false}") }
        try await orders.setAvailable(item, available, by: actor(device))
        return Self.json(.ok, Array(try AvailabilityAnswer(item: item, available: available).json.jsonText.utf8))
    }

    /// `GET /v1/reports/x`: the figures since the last Z.
    func xReport(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        _ = try context.device
        try Self.noQuery(request)
        return Self.json(.ok, Array(try store.xReport().json.jsonText.utf8))
    }

    /// `POST /v1/reports/z` `{"ref": "…"}` (the body optional; an `Idempotency-Key` is the ref when none is given):
    /// closes the day. 201 with the new report; 200 with the one a ref already closed.
    func closeDay(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let device = try context.device
        try Self.noQuery(request)
        let body = try await Self.body(of: request, context)
        var ref = try APIInput.idempotencyKey(request.headers)
        if !body.isEmpty {
            try APIInput.checkMediaType(request.headers[.contentType])
            guard let object = (try? JSONParser.parse(body))?.objectValue, object.allSatisfy({ $0.0 == "ref" }) else {
                throw Problem.validation("the body is {\"ref\": \"…\"} or nothing")
            }
            if let given = object.first?.1 {
                guard let text = given.stringValue else { throw Problem.validation("ref is a string") }
                ref = text
            }
        }
        let (report, closed) = try await orders.close(ref: ref, by: actor(device))
        var response = Self.json(closed ? .created : .ok, Array(try report.json.jsonText.utf8))
        response.headers[HTTPField.Name.location] = "/v1/reports/\(report.number)"
        return response
    }

    /// `GET /v1/reports/{number}`: a Z report.
    func zReport(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        _ = try context.device
        try Self.noQuery(request)
        let last = request.uri.path.split(separator: "/").last.map(String.init) ?? ""
        guard let number = Int64(last), number >= 1, let report = try store.zReport(number: number) else {
            throw Problem.notFound("no Z report \(last.prefix(20))")
        }
        return Self.json(.ok, Array(try report.json.jsonText.utf8))
    }

    /// The device's actor: the daemon on its behalf, from its address.
    func actor(_ device: DeviceIdentity) -> ChangeActor {
        var actor = daemon
        actor.device = device.name
        actor.address = device.address
        return actor
    }

    static func noQuery(_ request: Request) throws {
        if let query = request.uri.query, !query.isEmpty {
            throw Problem.validation("this route takes no query parameters")
        }
    }
}
