public import HTTPTypes
public import Hummingbird
import NIOCore
import OpenAPIRuntime
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

/// An order API error as RFC 9457 problem details (`application/problem+json`), whose `type` ends in the error's
/// name: the control socket's (`not_found`, `conflict`, …) or the API's own (`unauthenticated`, `rate_limited`,
/// `idempotency_key_reused`, …; CONTRACT section 15).
public struct Problem: Error, Sendable, Equatable {
    /// The HTTP status it answers with.
    public var status: HTTPResponse.Status
    /// The error's name, as on the socket.
    public var name: String
    /// What happened, in a sentence.
    public var detail: String
    /// Headers the answer carries besides its type (`Retry-After`, `WWW-Authenticate`).
    public var headers: HTTPFields
    /// For an internal error: the id its log line carries (the problem says nothing else of it).
    public var requestId: String?
    /// For an internal error: what happened, for the log alone, never the answer.
    var logged: String?
    /// For an item off the menu: the field that named it, the item and the reason (`unavailable`), as members.
    var item: RefusedItem?

    /// An item a request named that is off the menu.
    struct RefusedItem: Sendable, Equatable {
        var field: String
        var item: String
        var reason: String
    }

    /// A problem named `name` (`not_found`) answered with `status`.
    public init(_ status: HTTPResponse.Status, _ name: String, _ detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.name = name
        self.detail = detail
        self.headers = headers
    }

    /// `urn:pizzad:problem:not_found`.
    public var type: String { "urn:pizzad:problem:" + name }

    /// The response: `{type, title, status, detail}`.
    public var response: Response { answer.response }

    /// The answer: `{type, title, status, detail}` as `application/problem+json`.
    var answer: APIAnswer {
        var writer = JSONWriter(capacity: 128 + detail.utf8.count)
        writer.open()
        writer.member("type", type)
        writer.member("title", name.replacingUnderscores)
        writer.member("status", Int64(status.code))
        writer.member("detail", detail)
        if let item {
            writer.member("field", item.field)
            writer.member("item", item.item)
            writer.member("reason", item.reason)
        }
        if let requestId { writer.member("requestId", requestId) }
        writer.close()
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return APIAnswer(
            status: status, headers: fields, body: Array(writer.text.utf8),
            failure: logged.map { "\($0) (request \(requestId ?? "-"))" })
    }

    /// An internal error: 500 `internal_error` whose answer says nothing of `error` but a request id, which the
    /// log line with `error` carries (CONTRACT section 15).
    static func `internal`(_ error: String) -> Problem {
        let id = String((0..<16).map { _ in "0123456789abcdef".randomElement()! })
        var problem = Problem(
            .internalServerError, "internal_error", "an internal error; the daemon's log names it with request \(id)")
        problem.requestId = id
        problem.logged = error
        return problem
    }

    static func unauthenticated(_ detail: String) -> Problem {
        Problem(.unauthorized, "unauthenticated", detail, headers: [.wwwAuthenticate: "Bearer realm=\"pizzad\""])
    }

    static func rateLimited(_ detail: String, retryAfter seconds: Int) -> Problem {
        Problem(.tooManyRequests, "rate_limited", detail, headers: [.retryAfter: String(max(1, seconds))])
    }

    static func denied(_ detail: String) -> Problem { Problem(.forbidden, "permission_denied", detail) }

    static func validation(_ detail: String) -> Problem { Problem(.badRequest, "validation", detail) }

    static func notFound(_ detail: String) -> Problem { Problem(.notFound, "not_found", detail) }

    /// What an error thrown by a route or the repository answers as.
    static func from(_ error: any Error) -> Problem {
        switch error {
        case let problem as Problem: return problem
        // A generated route's error (DocumentRoutes), or the generated server's refusal of a request the document
        // does not allow.
        case let error as ServerError where error.underlyingError is Problem: return from(error.underlyingError)
        case let error as ServerError:
            // The runtime's own status for it (406 for an Accept it cannot answer, 400 for a malformed request).
            let status = error.httpStatus.code >= 500 ? HTTPResponse.Status.badRequest : error.httpStatus
            return Problem(status, "validation", "\(error.causeDescription): \(error.underlyingError)")
        // The domain's errors, storage's and the parameters' (an order's, a pizza's, the disk's, a value the
        // schema's CHECKs refuse): each says its kind once.
        case let error as any DomainFailure: return from(error)
        case let error as HTTPError where error.status == .contentTooLarge:
            return tooLarge
        case is NIOTooManyBytesError: return tooLarge
        case is CancellationError:
            // The client went away mid-request; a change already submitted goes on and keeps its key.
            return Problem(.serviceUnavailable, "overloaded", "the request was cancelled: the client went away")
        case let error as HTTPError: return Problem(error.status, "validation", error.body ?? "\(error.status)")
        default: return .internal("\(error)")
        }
    }

    static let tooLarge = Problem(
        .contentTooLarge, "validation", "the body is larger than \(APISettings.maximumBodyBytes) bytes")

    /// A domain error as the API answers it: its kind's name, the HTTP status the contract gives that kind.
    static func from(_ failure: any DomainFailure) -> Problem {
        let status: HTTPResponse.Status =
            switch failure.kind {
            case .notFound: .notFound
            case .invalidTransition, .conflict: .conflict
            case .validation: .badRequest
            case .permissionDenied: .forbidden
            case .storage, .overloaded: .serviceUnavailable
            case .internal: .internalServerError
            }
        if failure.kind == .internal { return .internal(failure.explanation) }
        var problem = Problem(status, failure.kind.rawValue, failure.explanation)
        let details = failure.details
        if let field = details.field, let item = details.item, let reason = details.reason {
            problem.item = RefusedItem(field: field, item: item, reason: reason)
        }
        return problem
    }
}

extension String {
    /// `not_found` → `not found`.
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}

/// Answers every error a route throws as problem details, so that no route writes its own error bodies.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = Problem.from(error)
            if let logged = problem.logged {
                context.logger.error(
                    "order API: \(request.method) \(request.uri.path) failed: \(logged)",
                    metadata: ["request": "\(problem.requestId ?? "-")"])
            }
            return problem.response
        }
    }
}
