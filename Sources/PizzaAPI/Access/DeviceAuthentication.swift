import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
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
        if let seconds = failures.lockedOut(context.peerHost) {
            throw Problem.rateLimited(
                "too many failed authentications from \(context.peerHost); try again later", retryAfter: seconds)
        }
        var request = request
        var context = context
        let credential: DeviceCredential?
        if let bearer = request.headers.bearer {
            credential = directory.device(bearer: bearer.token)
        } else if let id = request.headers[.webhookID], let timestamp = request.headers[.webhookTimestamp],
            let signatures = request.headers[.webhookSignature]
        {
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            let signature = RequestSignature(
                id: id, timestamp: timestamp, signatures: signatures.split(separator: " ").map(String.init),
                body: Array(body.readableBytesView))
            guard signature.isFresh(now: Timestamp.now().millisecondsSince1970 / 1000) else {
                failures.failed(context.peerHost)
                throw Problem.unauthenticated("webhook-timestamp is more than 5 minutes from now")
            }
            credential = directory.device(signed: signature)
        } else {
            failures.failed(context.peerHost)
            throw Problem.unauthenticated("send Authorization: Bearer TOKEN (pizzactl device add prints one)")
        }
        guard let credential else {
            if let seconds = failures.failed(context.peerHost) {
                context.logger.warning(
                    "order API: locked out an address after failed authentications",
                    metadata: ["address": "\(context.peerHost)", "seconds": "\(seconds)"])
            }
            throw Problem.unauthenticated("the token or signature is not one of an active device")
        }
        guard rates.admit(credential.name) else {
            throw Problem.rateLimited(
                "device \(credential.name) sends faster than api.requestsPerSecond", retryAfter: 1)
        }
        directory.saw(credential.name, from: context.peer)
        context.identity = DeviceIdentity(name: credential.name, role: credential.role, address: context.peer)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let webhookID = Self("webhook-id")!
    static let webhookTimestamp = Self("webhook-timestamp")!
    static let webhookSignature = Self("webhook-signature")!
    static let idempotencyKey = Self("Idempotency-Key")!
    static let lastEventID = Self("Last-Event-ID")!
}
