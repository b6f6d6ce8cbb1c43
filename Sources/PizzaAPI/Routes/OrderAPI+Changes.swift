import HTTPTypes
import Hummingbird
import HummingbirdAuth
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

    /// What an `Idempotency-Key` makes of a request.
    private enum Claim {
        /// No key (allowed for all but a create): the change runs as any would.
        case none
        /// The key's first request answered already, and this is the same request: its answer again.
        case replay(APIAnswer)
        /// The key is new (or kept past `api.idempotencyHours`, which is new again), now held by this request.
        case claimed(String)
    }

    /// Checks and claims `header` for `device`: a missing key on a create is 400, a key whose first request still
    /// runs 409, a key kept with another request 422, and one kept with this very request its first answer.
    private func claim(
        _ header: String?, creating: Bool, path: String, body: [UInt8], device: DeviceIdentity
    ) throws -> Claim {
        guard let header else {
            guard !creating else {
                throw Problem(
                    .badRequest, "idempotency_key_missing",
                    "POST /v1/orders needs an Idempotency-Key header (a new UUID per order, the same on every retry)")
            }
            return .none
        }
        let key = try InFlightKeys.checked(header)
        let fingerprint = InFlightKeys.fingerprint(method: "POST", path: path, body: body)
        // A key whose answer is kept is answered from it without a claim: replays of one key at once (a till's
        // retries on several connections) are each answered, none 409.
        if let replay = try replay(of: key, device: device, fingerprint: fingerprint) { return .replay(replay) }
        guard inFlight.claim(device: device.name, key: key) else {
            throw Problem(
                .conflict, "idempotency_key_in_use", "the first request with this Idempotency-Key is still running")
        }
        // Its first request may have finished between the look and the claim (it is known before it is released).
        do {
            guard let replay = try replay(of: key, device: device, fingerprint: fingerprint) else {
                return .claimed(key)
            }
            inFlight.release(device: device.name, key: key)
            return .replay(replay)
        } catch {
            inFlight.release(device: device.name, key: key)
            throw error
        }
    }

    /// The kept first answer to `device`'s `key`, marked replayed, if one is kept and not past its time; 422 when it
    /// was kept for another request (`fingerprint`).
    private func replay(of key: String, device: DeviceIdentity, fingerprint: String) throws -> APIAnswer? {
        guard knownKeys.contains(device: device.name, key: key),
            let kept = try store.keptAnswer(device: device.name, key: key), !isExpired(kept)
        else { return nil }
        guard kept.request == fingerprint else {
            throw Problem(
                .unprocessableContent, "idempotency_key_reused",
                "this Idempotency-Key was used with another request at \(kept.at); use a new key for a new request")
        }
        var answer = APIAnswer.json(HTTPResponse.Status(code: kept.status), Array(kept.body.utf8))
        answer.headers[.idempotentReplayed] = "true"
        if kept.status == 201 { answer.headers[.location] = "/v1/orders/\(kept.orderID)" }
        return answer
    }

    /// Whether a kept answer is past `api.idempotencyHours`: its key is then new (the table is swept of such rows
    /// only now and then, so one may still be there).
    private func isExpired(_ kept: KeptAnswer) -> Bool {
        guard let at = Timestamp(iso8601: kept.at) else { return true }
        return Timestamp.now().millisecondsSince1970 - at.millisecondsSince1970
            > Int64(settings.idempotencyHours) * 3_600_000
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

    /// The `Idempotency-Key` a change runs under. A signed push (Standard Webhooks headers, no bearer token) is
    /// keyed by its `webhook-id`, which the signature covers (CONTRACT section 15): a captured push replayed, with
    /// or without a fresh `Idempotency-Key`, gets the first answer and changes nothing; an `Idempotency-Key` beside
    /// it must be the same (400 otherwise).
    static func idempotencyKey(_ headers: HTTPFields) throws -> String? {
        let key = headers[.idempotencyKey]
        guard headers.bearer == nil, let id = headers[.webhookID] else { return key }
        if let key, key != id {
            throw Problem.validation(
                "a signed push is keyed by its webhook-id: Idempotency-Key must be the same or absent")
        }
        return id
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
