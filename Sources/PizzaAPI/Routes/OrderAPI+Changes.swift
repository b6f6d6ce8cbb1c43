import HTTPTypes
import Hummingbird
import NIOCore
import PizzaCore
import PizzaStorage
import PizzaWire

/// An answer before it is HTTP: what Hummingbird's routes return as a `Response`, and what ``ChangesOnLoop`` writes
/// itself on the connection's event loop.
struct APIAnswer: Sendable {
    /// Its status.
    var status: HTTPResponse.Status
    /// Its headers, `Content-Type` among them (`Content-Length` is the writer's).
    var headers: HTTPFields
    /// Its body: an order, a problem.
    var body: [UInt8]
    /// For a 500, the error it answers, for the log.
    var failure: String?

    /// A JSON answer.
    static func json(_ status: HTTPResponse.Status, _ bytes: [UInt8]) -> APIAnswer {
        APIAnswer(status: status, headers: [.contentType: "application/json"], body: bytes)
    }

    /// As Hummingbird's response.
    var response: Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// The changing `POST`s (CONTRACT section 15): what a request asks, known from its method and path before its body.
enum ChangeRoute: Sendable, Equatable {
    case create
    case place(Int64)
    case advance(Int64)
    case cancel(Int64)

    /// The route of a `POST` to `path` (`/v1/orders`, `/v1/orders/7/place`); nil for any other path, one with a query,
    /// or an id that is not a positive whole number (those are the router's to answer).
    init?(post path: String) {
        // Read in place, byte by byte: it is asked of every POST's path.
        let bytes = path.utf8
        let collection = "/v1/orders".utf8
        guard bytes.starts(with: collection) else { return nil }
        var rest = bytes.dropFirst(collection.count)
        if rest.isEmpty {
            self = .create
            return
        }
        guard rest.first == UInt8(ascii: "/") else { return nil }
        rest = rest.dropFirst()
        var id: Int64 = 0
        while let byte = rest.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times10, overflow) = id.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { return nil }
            id = sum
            rest = rest.dropFirst()
        }
        // No digit, or only zeros, leaves 0: not an order's id.
        guard id > 0, rest.first == UInt8(ascii: "/") else { return nil }
        rest = rest.dropFirst()
        if rest.elementsEqual("place".utf8) {
            self = .place(id)
        } else if rest.elementsEqual("advance".utf8) {
            self = .advance(id)
        } else if rest.elementsEqual("cancel".utf8) {
            self = .cancel(id)
        } else {
            return nil
        }
    }

    /// The right a device's role needs for it.
    var right: DeviceRole.Right {
        switch self {
        case .create: .create
        case .place: .place
        case .advance: .advance
        case .cancel: .cancel
        }
    }
}

extension OrderAPI {
    /// Runs the change `route` asks for with `body`, for `device`, and calls `completion` with the answer: on the
    /// store's writer once the change is durable, or at once for a request refused before it (or a replayed key).
    /// Hummingbird's routes and ``ChangesOnLoop`` both come here, so that the two cannot answer differently.
    func change(
        _ route: ChangeRoute, path: String, key: String?, contentType: String?, body: [UInt8],
        device: DeviceIdentity, completion: @escaping @Sendable (APIAnswer) -> Void
    ) {
        do {
            guard device.may(route.right) else {
                throw Problem.denied(
                    "device \(device.name) is a \(device.role.rawValue), which may not \(route.right.rawValue)")
            }
            try Self.checkMediaType(contentType)
            let status: HTTPResponse.Status = route == .create ? .created : .ok
            // The key first: a retry finds its first answer even if the body would not pass today (a menu reloaded
            // since), and holds the key while its body is read into a change.
            let claimed = try claim(key, creating: route == .create, path: path, body: body, device: device)
            let keyed: RequestKey?
            switch claimed {
            case .replay(let answer): return completion(answer)
            case .none: keyed = nil
            case .claimed(let key):
                keyed = RequestKey(
                    device: device.name, key: key,
                    request: InFlightKeys.fingerprint(method: "POST", path: path, body: body), status: status.code)
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
    private func changeRequest(_ route: ChangeRoute, body: [UInt8], device: DeviceIdentity) throws -> ChangeRequest {
        switch route {
        case .create:
            return try ChangeRequest.create(try Self.params(body), factory: factory())
        case .place(let id):
            try Self.params(body, empty: true).onlyKnown([])
            return .place(order: id)
        case .advance(let id):
            let params = try Self.params(body, empty: true)
            try params.onlyKnown(["from"])
            return .advance(order: id, from: try params.status("from"))
        case .cancel(let id):
            try checkOwner(device, id)
            let params = try Self.params(body)
            try params.onlyKnown(["reason"])
            return try .cancel(order: id, params)
        }
    }

    /// Runs `change` for `device`, once under its claimed `key`: the key is recorded with the change, and known
    /// before it is released, so that a retry arriving in between finds it rather than running again.
    private func submit(
        _ change: ChangeRequest, status: HTTPResponse.Status, key: RequestKey?, device: DeviceIdentity,
        completion: @escaping @Sendable (APIAnswer) -> Void
    ) {
        var actor = daemon
        actor.device = device.name
        actor.address = device.address
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

    /// Hummingbird's route for a change: the device's right checked before the body is read, then ``change(_:path:key:body:device:completion:)``.
    func change(_ route: ChangeRoute, _ request: Request, _ context: APIRequestContext) async throws -> Response {
        let device = try context.identity(may: route.right)
        let body = try await Self.body(of: request, context)
        let key = try Self.idempotencyKey(request.headers)
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

    /// A change's body is JSON: a `Content-Type` that says otherwise (a form, text) is 415 `unsupported_media_type`;
    /// none at all is taken as JSON, as the tills that omit it have always been.
    static func checkMediaType(_ contentType: String?) throws {
        // What a till sends, compared without a copy (this is asked of every change).
        guard let contentType, contentType != "application/json" else { return }
        let type = contentType.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) ?? ""
        guard type.lowercased() == "application/json" else {
            throw Problem(
                .unsupportedMediaType, "unsupported_media_type",
                "the body must be application/json, not \(type.prefix(100))")
        }
    }
}
