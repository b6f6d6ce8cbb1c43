import Hummingbird

/// The metrics endpoint's routes (CONTRACT section 10): `GET /metrics` (the Prometheus text exposition),
/// `GET /healthz` (alive), `GET /readyz` (503 with the reason while storage fails or the daemon stops), and `HEAD`
/// of each.
struct MetricsRoutes: Sendable {
    /// The Prometheus text format's content type (exposition format 0.0.4).
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"
    static let paths = ["/metrics", "/healthz", "/readyz"]

    /// The Prometheus text exposition, read at each scrape.
    let metrics: @Sendable () -> String
    /// Nil when ready, else why not (one line).
    let notReady: @Sendable () -> String?

    func router() -> Router<EndpointContext> {
        let router = Router(context: EndpointContext.self)
        router.add(
            middleware: ReadOnlyPaths(
                paths: Self.paths, notFound: "not found: pizzad serves \(Self.paths.joined(separator: ", "))\n"))
        router.getAndHead("/metrics") { _, _ in .text(.ok, metrics(), contentType: Self.metricsContentType) }
        router.getAndHead("/healthz") { _, _ in .text(.ok, "ok\n") }
        router.getAndHead("/readyz") { _, _ in
            guard let reason = notReady() else { return .text(.ok, "ready\n") }
            return .text(.serviceUnavailable, "not ready: \(reason)\n")
        }
        return router
    }
}
