import HTTPTypes
import Hummingbird
import NIOCore
import PizzaCore
import PizzaHTTPEdges
import PizzaStorage
import PizzaWire

extension APIAnswer {
    /// As Hummingbird's response.
    var response: Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension OrderAPI {
    /// Runs the change `route` asks for with `body`, for `device`, and calls `completion` with the answer: on the
    /// store's writer once the change is durable, or at once for a request refused before it (or a replayed key).
    /// Hummingbird's routes and ``ChangesOnLoop`` both come here, so that the two cannot answer differently.
    func change(
        _ route: APIRoute.Match, path: String, key: String?, contentType: String?, body: [UInt8],
        device: DeviceIdentity, completion: @escaping @Sendable (APIAnswer) -> Void
    ) {
        do {
            try route.route.permit(device)
            try APIInput.checkMediaType(contentType)
            let creating = route.route.operation == .createOrder
            let status: HTTPResponse.Status = creating ? .created : .ok
            // The key first: a retry finds its first answer even if the body would not pass today (a menu reloaded
            // since), and holds the key while its body is read into a change.
            let claimed = try claim(key, creating: creating, path: path, body: body, device: device)
            let keyed: RequestKey?
            switch claimed {
            case .replay(let answer): return completion(answer)
            case .none: keyed = nil
            case .claimed(let key):
                keyed = RequestKey(
                    device: device.name, key: key,
                    request: InFlightKeys.fingerprint(method: "POST", path: path, body: body), creates: creating)
            }
            let change: ChangeRequest
            do {
                change = try changeRequest(route, body: body, device: device)
            } catch {
                if let keyed { inFlight.release(device: device.name, key: keyed.key) }
                throw error
            }
            submit(change, status: status, key: keyed, device: device, completion: completion)
        } catch {
            completion(Self.answer(error))
        }
    }

    /// The change `route` asks for with `body`: the body read and checked against today's menu.
    private func changeRequest(_ route: APIRoute.Match, body: [UInt8], device: DeviceIdentity) throws
        -> ChangeRequest
    {
        let id = route.id ?? 0  // a route with `{id}` comes here only with one (``APIRoute/Match/isComplete``)
        switch route.route.operation {
        case .createOrder:
            return try ChangeRequest.create(try APIInput.params(body), factory: factory())
        case .placeOrder:
            try APIInput.params(body, empty: true).onlyKnown([])
            return .place(order: id)
        case .advanceOrder:
            let params = try APIInput.params(body, empty: true)
            try params.onlyKnown(["from"])
            return .advance(order: id, from: try params.status("from"))
        case .cancelOrder:
            try checkOwner(device, id)
            let params = try APIInput.params(body)
            try params.onlyKnown(["reason"])
            return try .cancel(order: id, params)
        case .setFulfilment:
            try checkOwner(device, id)
            return try .setFulfilment(order: id, .object(try APIInput.params(body).members), factory: factory())
        case .payOrder:
            try checkOwner(device, id)
            let params = try APIInput.params(body)
            try params.onlyKnown(["tender", "amount", "ref"])
            if device.role == .platform, try params.string("tender") != Tender.platform.rawValue {
                throw Problem.denied("a platform pays with tender platform")
            }
            return try .pay(order: id, params)
        case .discountOrder:
            let params = try APIInput.params(body)
            try params.onlyKnown(["amount", "percent", "item", "reason"])
            return try .discount(order: id, params)
        case .refundOrder:
            let params = try APIInput.params(body)
            try params.onlyKnown(["payment", "amount", "reason"])
            return try .refund(order: id, params)
        case .getDocument, .getMenu, .listOrders, .getOrder, .watchEvents, .setAvailability, .getXReport, .closeDay,
            .getZReport, .getDayPage:
            throw Problem.internal("\(route.route.path) is not a change")
        }
    }

    /// Runs `change` for `device`, once under its claimed `key`: the key is recorded with the change, and known
    /// before it is released, so that a retry arriving in between finds it rather than running again.
    private func submit(
        _ change: ChangeRequest, status: HTTPResponse.Status, key: RequestKey?, device: DeviceIdentity,
        completion: @escaping @Sendable (APIAnswer) -> Void
    ) {
        let actor = actor(device)
        let creating = change.operation == .create
        guard let key else {
            return repository.submit(change, by: actor) { result in
                switch result {
                case .success(let outcome): completion(Self.answer(outcome, status: status))
                case .failure(let error): completion(Self.answer(error))
                }
            }
        }
        repository.submit(change, by: actor, key: key) { [inFlight, knownKeys] result in
            if case .success(let outcome) = result, outcome.change != nil {
                knownKeys.insert(device: device.name, key: key.key)
            }
            inFlight.release(device: device.name, key: key.key)
            switch result {
            case .success(let outcome):
                if creating, outcome.change == nil {
                    // The ref names an order made by another key or device: say so, without that order's data.
                    return completion(
                        Problem(
                            .conflict, "ref_in_use", "the ref is taken by another order; an order's ref is made once"
                        )
                        .answer)
                }
                completion(Self.answer(outcome, status: status))
            case .failure(let error):
                completion(Self.answer(error))
            }
        }
    }

    /// The order a change left, as `status` answers it (`201` with its `Location`).
    static func answer(_ outcome: OrderOutcome, status: HTTPResponse.Status) -> APIAnswer {
        let text = outcome.change?.afterWireText ?? outcome.cart.wireText
        var answer = APIAnswer.json(status, Array(text.utf8))
        if status == .created { answer.headers[.location] = "/v1/orders/\(outcome.cart.id)" }
        return answer
    }

    /// What `error` answers as: its problem details, the error kept for the log when it is a 500.
    static func answer(_ error: any Error) -> APIAnswer {
        Problem.from(error).answer
    }

    /// Hummingbird's route for a change (its right checked by ``RouteAccess``, before the body is read), then
    /// ``change(_:path:key:contentType:body:device:completion:)``.
    func change(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let device = try context.device
        guard let route = context.route else { throw Problem.notFound("no route \(request.uri.path)") }
        if !route.isComplete { _ = try Self.orderID(context) }  // 404, naming what is no order's id
        let body = try await Self.body(of: request, context)
        let key = try APIInput.idempotencyKey(request.headers)
        let answer = await withCheckedContinuation { continuation in
            change(
                route, path: request.uri.path, key: key,
                contentType: request.headers[.contentType], body: body, device: device
            ) { continuation.resume(returning: $0) }
        }
        if let failure = answer.failure {
            context.logger.error("order API: \(request.method) \(request.uri.path) failed: \(failure)")
        }
        return answer.response
    }
}
