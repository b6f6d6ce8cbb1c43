import HTTPTypes
import Hummingbird
import NIOCore
import OpenAPIRuntime
import PizzaCore
import PizzaHTTPEdges

/// A problem as Hummingbird answers it, and what any error a route throws answers as.
extension Problem {
    /// The response: `{type, title, status, detail}`.
    var response: Response { answer.response }

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

    /// A body past ``APISettings/maximumBodyBytes``.
    static let tooLarge = Problem(
        .contentTooLarge, "validation", "the body is larger than \(APISettings.maximumBodyBytes) bytes")
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
