import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging
import PizzaCore
import PizzaHTTPEdges

/// Proves which device sent a request, before any route runs: a bearer token, or for a device that signs its
/// pushes, the Standard Webhooks headers over the body. Refuses the rest with 401 `unauthenticated` (no order data),
/// or 429 once their address is past its failed attempts, and a device past its rate with 429.
struct DeviceAuthentication: RouterMiddleware {
    typealias Context = APIRequestContext

    let directory: DeviceDirectory
    let failures: AuthenticationFailures
    let rates: DeviceRateLimiter

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // The document describes the API and holds no order data: anyone who can reach the port may read it.
        if let route = context.route?.route, route.right == nil { return try await next(request, context) }
        // A body announced larger than allowed is refused before a byte of it is waited for.
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > context.maxUploadSize {
            throw Problem.tooLarge
        }
        var request = request
        var context = context
        var body: [UInt8]?
        if request.headers.bearerToken == nil, request.headers[.webhookID] != nil {
            // A signature covers the body: it is read (at most the limit) before the device is known. A locked-out
            // address is still read: a platform's relay that shares it with someone mistyping must get through.
            body = Array(try await request.collectBody(upTo: context.maxUploadSize).readableBytesView)
        }
        context.identity = try identify(
            request.headers, body: body, peer: context.peer, peerHost: context.peerHost, logger: context.logger)
        return try await next(request, context)
    }

    /// The device that sent a request with `headers` (and `body`, for a signed one) from `peer`: a bearer token of
    /// an active device, or a signature by one's secret; refused past the device's rate, or with neither. Failures
    /// count against `peerHost`'s address (an IPv6 one by its /64), and an address past its failures is answered
    /// 429 for each further failure; a valid credential is served from it all the same (CONTRACT section 15), so
    /// tills behind one NAT are not locked out by one that mistypes. ``ChangesOnLoop`` asks the same for the
    /// requests it answers.
    func identify(
        _ headers: HTTPFields, body: [UInt8]?, peer: String, peerHost: String, logger: Logger
    ) throws -> DeviceIdentity {
        let credential: DeviceCredential?
        if let token = headers.bearerToken {
            credential = directory.device(bearer: token)
        } else if let id = headers[.webhookID], let timestamp = headers[.webhookTimestamp],
            let signatures = headers[.webhookSignature], let body
        {
            let signature = RequestSignature(
                id: id, timestamp: timestamp, signatures: signatures.split(separator: " ").map(String.init),
                body: body)
            guard signature.isFresh(now: Timestamp.now().millisecondsSince1970 / 1000) else {
                throw refusal(
                    .unauthenticated("webhook-timestamp is more than 5 minutes from now"), peerHost: peerHost,
                    credential: signatures, logger: logger)
            }
            credential = directory.device(signed: signature)
        } else {
            throw refusal(
                .unauthenticated("send Authorization: Bearer TOKEN (pizzactl device add prints one)"),
                peerHost: peerHost, credential: "", logger: logger)
        }
        guard let credential else {
            throw refusal(
                .unauthenticated("the token or signature is not one of an active device"), peerHost: peerHost,
                credential: headers.bearerToken ?? headers[.webhookSignature] ?? "", logger: logger)
        }
        guard rates.admit(credential.name) else {
            throw Problem.rateLimited(
                "device \(credential.name) sends faster than api.requestsPerSecond", retryAfter: 1)
        }
        directory.saw(credential.name, from: peer)
        return DeviceIdentity(name: credential.name, role: credential.role, address: peer)
    }

    /// What a failed authentication with `credential` from `peerHost` is answered: `problem`, counted against its
    /// address, or 429 while the address is locked out (then not counted again, so a lockout ends a minute after it
    /// began).
    private func refusal(_ problem: Problem, peerHost: String, credential: String, logger: Logger) -> Problem {
        let address = AuthenticationFailures.address(of: peerHost)
        if let seconds = failures.lockedOut(address) {
            return Problem.rateLimited(
                "too many failed authentications from \(address); try again later", retryAfter: seconds)
        }
        if let seconds = failures.failed(address, credential: credential) {
            logger.warning(
                "order API: locked out an address after failed authentications",
                metadata: ["address": "\(address)", "seconds": "\(seconds)"])
        }
        return problem
    }
}
