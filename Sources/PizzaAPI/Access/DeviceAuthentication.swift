import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging
import PizzaCore

/// Proves which device sent a request, before any route runs: a bearer token, or for a device that signs its
/// pushes, the Standard Webhooks headers over the body. Refuses the rest with 401 `unauthenticated` (no order data),
/// an address past its failed attempts with 429, and a device past its rate with 429.
struct DeviceAuthentication: RouterMiddleware {
    typealias Context = APIRequestContext

    let directory: DeviceDirectory
    let failures: AuthenticationFailures
    let rates: DeviceRateLimiter

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // The document describes the API and holds no order data: anyone who can reach the port may read it.
        if request.method == .get, request.uri.path == "/v1/openapi.yaml" { return try await next(request, context) }
        // A body announced larger than allowed is refused before a byte of it is waited for.
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > context.maxUploadSize {
            throw Problem.tooLarge
        }
        var request = request
        var context = context
        var body: [UInt8]?
        if request.headers.bearer == nil, request.headers[.webhookID] != nil {
            // A signature covers the body: it is read (at most the limit) before the device is known, but not from
            // an address already locked out.
            try checkLockout(context.peerHost)
            body = Array(try await request.collectBody(upTo: context.maxUploadSize).readableBytesView)
        }
        context.identity = try identify(
            request.headers, body: body, peer: context.peer, peerHost: context.peerHost, logger: context.logger)
        return try await next(request, context)
    }

    /// The device that sent a request with `headers` (and `body`, for a signed one) from `peer`: a bearer token of
    /// an active device, or a signature by one's secret; refused while `peerHost` is locked out, past the device's
    /// rate, or with neither. ``ChangesOnLoop`` asks the same for the requests it answers.
    func identify(
        _ headers: HTTPFields, body: [UInt8]?, peer: String, peerHost: String, logger: Logger
    ) throws -> DeviceIdentity {
        try checkLockout(peerHost)
        let credential: DeviceCredential?
        if let bearer = headers.bearer {
            credential = directory.device(bearer: bearer.token)
        } else if let id = headers[.webhookID], let timestamp = headers[.webhookTimestamp],
            let signatures = headers[.webhookSignature], let body
        {
            let signature = RequestSignature(
                id: id, timestamp: timestamp, signatures: signatures.split(separator: " ").map(String.init),
                body: body)
            guard signature.isFresh(now: Timestamp.now().millisecondsSince1970 / 1000) else {
                failures.failed(peerHost)
                throw Problem.unauthenticated("webhook-timestamp is more than 5 minutes from now")
            }
            credential = directory.device(signed: signature)
        } else {
            failures.failed(peerHost)
            throw Problem.unauthenticated("send Authorization: Bearer TOKEN (pizzactl device add prints one)")
        }
        guard let credential else {
            if let seconds = failures.failed(peerHost) {
                logger.warning(
                    "order API: locked out an address after failed authentications",
                    metadata: ["address": "\(peerHost)", "seconds": "\(seconds)"])
            }
            throw Problem.unauthenticated("the token or signature is not one of an active device")
        }
        guard rates.admit(credential.name) else {
            throw Problem.rateLimited(
                "device \(credential.name) sends faster than api.requestsPerSecond", retryAfter: 1)
        }
        directory.saw(credential.name, from: peer)
        return DeviceIdentity(name: credential.name, role: credential.role, address: peer)
    }

    private func checkLockout(_ peerHost: String) throws {
        if let seconds = failures.lockedOut(peerHost) {
            throw Problem.rateLimited(
                "too many failed authentications from \(peerHost); try again later", retryAfter: seconds)
        }
    }
}

extension HTTPField.Name {
    static let webhookID = Self("webhook-id")!
    static let webhookTimestamp = Self("webhook-timestamp")!
    static let webhookSignature = Self("webhook-signature")!
    static let idempotencyKey = Self("Idempotency-Key")!
    static let lastEventID = Self("Last-Event-ID")!
}
