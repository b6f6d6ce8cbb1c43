import HTTPTypes
import Hummingbird
import PizzaHTTPEdges

/// Finds a request's route in ``APIRoute/all`` before authentication: a method the route does not take is 405
/// with `Allow` (RFC 9110: the route exists, only not for that method); the route found is kept in the context for
/// ``RouteAccess``. Other paths are left to the router (404).
struct AllowedMethods: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let (routes, id) = APIRoute.routes(at: request.uri.path)
        guard !routes.isEmpty else { return try await next(request, context) }
        let method = request.method == .head ? .get : request.method
        guard let route = routes.first(where: { $0.method == method }) else {
            let allow = routes.flatMap(\.methods).map(\.rawValue).joined(separator: ", ")
            throw Problem(
                .methodNotAllowed, "method_not_allowed", "\(request.uri.path) takes \(allow)",
                headers: [.allow: allow])
        }
        var context = context
        context.route = APIRoute.Match(route: route, id: id)
        return try await next(request, context)
    }
}

/// The role check of every route the router answers, after ``DeviceAuthentication``: ``APIRoute/permit(_:)`` of the
/// route ``AllowedMethods`` found, so that no handler checks a right of its own.
struct RouteAccess: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try context.route?.route.permit(context.identity)
        return try await next(request, context)
    }
}
