public import Hummingbird
public import PizzaCore
public import PizzaStorage

/// The order API (CONTRACT section 15): what its routes need, and its router. ``APIServer`` serves it over
/// TCP; tests run the same router in process.
///
/// Every change goes through the one repository, as the control socket's do, with the device and the peer's
/// address as its actor; an `Idempotency-Key` is kept with the change it asked for (``InFlightKeys``,
/// `RequestLog`), so that a till retrying on a flaky network never makes an order twice.
public final class OrderAPI: Sendable {
    /// The store, the repository and their writers: Z reports and availability go through it.
    let orders: OrderBook
    let repository: OrderRepository<SQLiteOrderStore>
    let store: SQLiteOrderStore
    /// The menu's factory as the configuration has it now (a reload may change it).
    let factory: @Sendable () -> PizzaFactory
    /// The daemon's own uid, user name and pid: a change over the API is made by the daemon on a device's behalf.
    let daemon: ChangeActor
    /// The OpenAPI document served at `GET /v1/openapi.yaml`.
    let document: String
    /// The devices, checked on every request.
    public let directory: DeviceDirectory
    /// Which device sent a request: the router's middleware and ``ChangesOnLoop`` ask it alike.
    let authentication: DeviceAuthentication
    let inFlight = InFlightKeys()
    let knownKeys: KnownKeys
    /// How it listens and what it allows.
    public let settings: APISettings
    /// The changes as Server-Sent Events, encoded once for every reader (the daemon's, which the board shares).
    public let events: EventFanOut

    /// The API over `orders`; `events` is the daemon's fan-out (nil: one of its own, for a router in a test).
    public init(
        orders: OrderBook, factory: @escaping @Sendable () -> PizzaFactory, daemon: ChangeActor, document: String,
        settings: APISettings, events: EventFanOut? = nil
    ) throws {
        self.orders = orders
        repository = orders.repository
        store = orders.store
        self.factory = factory
        self.daemon = daemon
        self.document = document
        self.settings = settings
        directory = try DeviceDirectory(store: orders.store)
        authentication = DeviceAuthentication(
            directory: directory, failures: AuthenticationFailures(allowed: settings.failedAuthenticationsAllowed),
            rates: DeviceRateLimiter(perSecond: settings.requestsPerSecond))
        knownKeys = try KnownKeys(store: orders.store, keepHours: settings.idempotencyHours)
        orders.requests.keepHours.withLock { $0 = settings.idempotencyHours }
        if let events {
            self.events = events
        } else {
            // Its own, subscribed while the API lives (the repository holds it weakly).
            self.events = EventFanOut()
            orders.repository.delegates += self.events
        }
    }

    /// The certificate and key served, set by ``APIServer`` when it serves TLS.
    let servedCertificate = Locked<ServedCertificate?>(nil)

    /// Reads the API's certificate and key again (`systemctl reload`): new connections get them, open ones keep
    /// theirs. Throws, serving the old pair, when they cannot be read or do not belong together; does nothing
    /// without TLS.
    public func reloadCertificate() throws {
        try servedCertificate.withLock { $0 }?.reload()
    }

    /// Reads the devices again (after `device add` and `device revoke`) and ends the event streams of revoked ones.
    public func reloadDevices() throws {
        try directory.reload()
        events.revalidate { directory.isActive($0) }
    }

    /// The routes, behind problem details and device authentication.
    public func router() throws -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        router.middlewares.add(ProblemMiddleware())
        router.middlewares.add(AllowedMethods())
        router.middlewares.add(authentication)
        router.middlewares.add(RouteAccess())
        // The document's server URL is the shop's own host; its routes' paths are the document's, from the root.
        // Compact JSON, keys sorted (the runtime's default pretty-prints).
        try DocumentRoutes(factory: factory, availability: repository.availability).registerHandlers(
            on: router, configuration: .init(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes]))
        addRoutes(to: router)
        return router
    }
}
