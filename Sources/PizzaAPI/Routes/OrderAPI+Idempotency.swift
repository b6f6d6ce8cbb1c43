import HTTPTypes
import HummingbirdAuth
import PizzaCore
import PizzaHTTPEdges
import PizzaStorage

/// `Idempotency-Key`s (CONTRACT section 15): what a key makes of a request (the first answer again, 422, 409, or a
/// claim while it runs); which key a change runs under is ``APIInput/idempotencyKey(_:)``'s.
extension OrderAPI {
    /// What an `Idempotency-Key` makes of a request.
    enum Claim {
        /// No key (allowed for all but a create): the change runs as any would.
        case none
        /// The key's first request answered already, and this is the same request: its answer again.
        case replay(APIAnswer)
        /// The key is new (or kept past `api.idempotencyHours`, which is new again), now held by this request.
        case claimed(String)
    }

    /// Checks and claims `header` for `device`: a missing key on a create is 400, a key whose first request still
    /// runs 409, a key kept with another request 422, and one kept with this very request its first answer.
    func claim(
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
        let key = try APIInput.checked(idempotencyKey: header)
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
}
