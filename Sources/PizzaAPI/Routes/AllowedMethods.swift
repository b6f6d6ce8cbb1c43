import HTTPTypes
import Hummingbird

/// Answers a method a route does not take with 405 and `Allow` (RFC 9110), before authentication: the route
/// exists, only not for that method. Other unknown paths are left to the router (404).
struct AllowedMethods: RouterMiddleware {
    typealias Context = APIRequestContext

    /// Each route's path, split on `/` (`{id}` a number), and the methods it takes.
    static let routes: [(path: [Substring], methods: [HTTPRequest.Method])] = [
        ("/v1/openapi.yaml", [.get, .head]), ("/v1/menu", [.get, .head]), ("/v1/orders", [.get, .head, .post]),
        ("/v1/orders/{id}", [.get, .head]), ("/v1/orders/{id}/place", [.post]), ("/v1/orders/{id}/advance", [.post]),
        ("/v1/orders/{id}/cancel", [.post]), ("/v1/events", [.get]),
    ].map { ($0.0.split(separator: "/"), $0.1) }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let parts = request.uri.path.split(separator: "/")
        guard
            let route = Self.routes.first(where: { route in
                route.path.count == parts.count
                    && zip(route.path, parts).allSatisfy { $0 == $1 || ($0 == "{id}" && Int64($1) != nil) }
            })
        else { return try await next(request, context) }
        guard route.methods.contains(request.method) else {
            let allow = route.methods.map(\.rawValue).joined(separator: ", ")
            throw Problem(
                .methodNotAllowed, "method_not_allowed", "\(request.uri.path) takes \(allow)",
                headers: [.allow: allow])
        }
        return try await next(request, context)
    }
}
