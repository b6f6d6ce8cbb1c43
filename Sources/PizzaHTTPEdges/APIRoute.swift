package import HTTPTypes
package import PizzaCore

/// Every operation of the order API, by its `operationId` in docs/openapi.yaml.
package enum APIOperation: String, CaseIterable, Sendable {
    case getDocument, getMenu, createOrder, listOrders, getOrder, placeOrder, advanceOrder, cancelOrder, watchEvents
    case setFulfilment, payOrder, discountOrder, refundOrder
    case setAvailability, getXReport, closeDay, getZReport, getDayPage
}

/// One route of the order API (CONTRACT section 15). ``all`` is the one table: the router registers its handlers
/// from it, ``AllowedMethods`` answers 405 from it, the event loop's fast path (``ChangesOnLoop``) finds its changes
/// in it, the role check is PizzaAPI's `permit(_:)` of its right, and a test holds it equal to docs/openapi.yaml. A new route
/// is one entry here and one handler (``OrderAPI/handler(for:)``, or the generated server for a generated one).
package struct APIRoute: Sendable {
    /// How a route is answered.
    package enum Answered: Sendable {
        /// By a handler of ``OrderAPI``, registered from the table.
        case handler
        /// A change: by ``OrderAPI/change(_:path:key:contentType:body:device:completion:)``, on the event loop when
        /// it can (``ChangesOnLoop``), else from the router.
        case change
        /// By the server swift-openapi-generator made of the document (``DocumentRoutes``).
        case generated
    }

    /// A part of a path: a name as it is, `{id}` (an order's id), or another `{parameter}` (any one segment).
    package enum Segment: Sendable, Equatable {
        case literal([UInt8])
        case id
        case parameter

        package var isLiteral: Bool {
            if case .literal = self { return true }
            return false
        }
    }

    /// Its operation.
    package let operation: APIOperation
    /// Its method (a `GET` takes `HEAD` too).
    package let method: HTTPRequest.Method
    /// Its path, as docs/openapi.yaml writes it.
    package let path: String
    /// What the device's role must have; nil: anyone who reaches the port (the document holds no order data).
    package let right: DeviceRole.Right?
    /// How it is answered.
    package let answered: Answered
    /// `path` split on `/`.
    package let segments: [Segment]

    package init(
        _ operation: APIOperation, _ method: HTTPRequest.Method, _ path: String, _ right: DeviceRole.Right?,
        _ answered: Answered = .handler
    ) {
        self.operation = operation
        self.method = method
        self.path = path
        self.right = right
        self.answered = answered
        segments = path.split(separator: "/").map { part in
            if part == "{id}" { return .id }
            if part.hasPrefix("{") && part.hasSuffix("}") { return .parameter }
            return .literal(Array(part.utf8))
        }
    }

    /// The table.
    package static let all: [APIRoute] = [
        APIRoute(.getDocument, .get, "/v1/openapi.yaml", nil),
        APIRoute(.getMenu, .get, "/v1/menu", .menu, .generated),
        APIRoute(.createOrder, .post, "/v1/orders", .create, .change),
        APIRoute(.listOrders, .get, "/v1/orders", .read),
        APIRoute(.getOrder, .get, "/v1/orders/{id}", .read),
        APIRoute(.placeOrder, .post, "/v1/orders/{id}/place", .place, .change),
        APIRoute(.advanceOrder, .post, "/v1/orders/{id}/advance", .advance, .change),
        APIRoute(.cancelOrder, .post, "/v1/orders/{id}/cancel", .cancel, .change),
        APIRoute(.watchEvents, .get, "/v1/events", .events),
        APIRoute(.setFulfilment, .put, "/v1/orders/{id}/fulfilment", .fulfil, .change),
        APIRoute(.payOrder, .post, "/v1/orders/{id}/payments", .pay, .change),
        APIRoute(.discountOrder, .post, "/v1/orders/{id}/discounts", .discount, .change),
        APIRoute(.refundOrder, .post, "/v1/orders/{id}/refunds", .refund, .change),
        APIRoute(.setAvailability, .put, "/v1/menu/items/{item}/availability", .availability),
        // Before `{number}`, which `x` and `today` would match too.
        APIRoute(.getXReport, .get, "/v1/reports/x", .reports),
        // A page with no figures: it reads them with the token typed into it.
        APIRoute(.getDayPage, .get, "/v1/reports/today", nil),
        APIRoute(.closeDay, .post, "/v1/reports/z", .reports),
        APIRoute(.getZReport, .get, "/v1/reports/{number}", .reports),
    ]

    /// The methods a route at this path takes (a `GET` takes `HEAD` too).
    package var methods: [HTTPRequest.Method] { method == .get ? [.get, .head] : [method] }

    /// A request matched to its route, and the `{id}` of its path when it is a positive whole number.
    package struct Match: Sendable {
        package let route: APIRoute
        package let id: Int64?

        /// `route`, with the `{id}` of the path it matched.
        package init(route: APIRoute, id: Int64?) {
            self.route = route
            self.id = id
        }
    }

    /// The routes whose path is `path` (any method; `{id}` any one segment), and the id there; none when no route
    /// has that path (the router's 404). Read byte by byte in place: it is asked of every request.
    ///
    /// A path that routes with a name there and routes with a parameter there both match is the named ones':
    /// `/v1/reports/z` is `POST /v1/reports/z`'s, not also `GET /v1/reports/{number}`'s (whose `Allow` would then
    /// name a method the path does not take).
    package static func routes(at path: String) -> (routes: [APIRoute], id: Int64?) {
        var found: [APIRoute] = []
        var id: Int64?
        var fewest = Int.max
        for route in all {
            guard let match = route.match(path.utf8) else { continue }
            if route.parameters < fewest {
                found.removeAll()
                fewest = route.parameters
            }
            if route.parameters == fewest {
                found.append(route)
                id = match
            }
        }
        return (found, id)
    }

    /// The route for `method` at `path`, with its id; nil when none takes it (nor when the path is a named route's
    /// that takes another method).
    package static func match(_ method: HTTPRequest.Method, _ path: String) -> Match? {
        let method = method == .head ? .get : method
        var best: Match?
        for route in all where route.method == method {
            guard let id = route.match(path.utf8), route.parameters < (best?.route.parameters ?? .max) else { continue }
            best = Match(route: route, id: id)
        }
        guard let best else { return nil }
        // A route with fewer parameters at this path, of another method, owns it (looked for only where one could be:
        // this is asked of every change on the event loop).
        if shadowable.contains(best.route.operation),
            all.contains(where: { $0.parameters < best.route.parameters && $0.match(path.utf8) != nil })
        {
            return nil
        }
        return best
    }

    /// The routes a route with fewer parameters can take a path from: the same number of segments, and each of the
    /// other's a name this one has too or has a parameter for (`GET /v1/reports/{number}`, by `/v1/reports/z`).
    package static let shadowable: Set<APIOperation> = Set(
        all.filter { route in
            all.contains { other in
                other.parameters < route.parameters && other.segments.count == route.segments.count
                    && zip(route.segments, other.segments).allSatisfy { mine, theirs in
                        mine == theirs || !mine.isLiteral
                    }
            }
        }.map(\.operation))

    /// How many of its segments are parameters (`{id}` or another): fewer is more specific.
    package var parameters: Int { segments.count { !$0.isLiteral } }

    /// Whether `path` is this route's (nil if not), and its `{id}` (nil inside when the segment is no positive whole
    /// number: the handler answers 404 for it).
    package func match(_ path: String.UTF8View) -> Int64?? {
        var index = path.startIndex
        var id: Int64?
        for segment in segments {
            guard index != path.endIndex, path[index] == UInt8(ascii: "/") else { return nil }
            index = path.index(after: index)
            let start = index
            while index != path.endIndex, path[index] != UInt8(ascii: "/") { index = path.index(after: index) }
            let part = path[start..<index]
            switch segment {
            case .literal(let name): guard part.elementsEqual(name) else { return nil }
            case .id:
                guard start != index else { return nil }
                id = Self.positiveID(part)
            case .parameter:
                guard start != index else { return nil }
            }
        }
        guard index == path.endIndex else { return nil }
        return .some(id)
    }

    /// `digits` as a positive Int64, or nil (a sign, a letter, zero, or past Int64.max).
    package static func positiveID(_ digits: Substring.UTF8View) -> Int64? {
        var id: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = id.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { return nil }
            id = sum
        }
        return id > 0 ? id : nil
    }
}

extension APIRoute.Match {
    /// The change of a `POST` to `path` (`/v1/orders`, `/v1/orders/7/place`), for the event loop's fast path; nil
    /// for any other path, one with a query, or an id that is not a positive whole number (the router's to answer).
    package init?(change path: String, method: HTTPRequest.Method = .post) {
        guard let match = APIRoute.match(method, path), match.route.answered == .change, match.isComplete else {
            return nil
        }
        self = match
    }

    /// Whether the path's `{id}`, if its route has one, is an order's id.
    package var isComplete: Bool { id != nil || !route.segments.contains(.id) }
}
