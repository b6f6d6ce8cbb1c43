/// How the order API listens and what it allows (`api.*` in `pizzad.yaml`; CONTRACT section 15).
public struct APISettings: Sendable, Equatable {
    /// The address to listen on (`api.listen`); nil when systemd passes the socket, or the API is off.
    public var host: String?
    /// The port for `api.listen` (8443 by default).
    public var port: Int
    /// PEM files of the certificate (with its chain) and its key (`api.tls.certificate`, `api.tls.key`); without
    /// them the API serves plain HTTP, which only a loopback address may.
    public var certificatePath: String?
    /// The PEM file of the certificate's private key (`api.tls.key`).
    public var keyPath: String?
    /// How long an `Idempotency-Key`'s answer is kept (`api.idempotencyHours`).
    public var idempotencyHours: Int
    /// Requests a device may make a second, on average (`api.requestsPerSecond`); twice as many in a burst.
    public var requestsPerSecond: Int
    /// Connections served at once (`api.maxConnections`); one more is answered 503 and closed.
    public var maxConnections: Int
    /// A connection with no request for this long is closed (`api.idleTimeoutSeconds`); a request's head must
    /// arrive within a tenth of it, at most 10 s, so that a slow client cannot hold a connection open by dribbling.
    public var idleTimeoutSeconds: Int
    /// Failed authentications from one address within a minute before it is locked out for a minute.
    public var failedAuthenticationsAllowed: Int
    /// Connections from one address at once (`api.maxConnectionsPerAddress`; an IPv6 one by its /64): one address
    /// cannot take every slot of ``maxConnections``.
    public var maxConnectionsPerAddress: Int
    /// Of those, connections that have not yet made a request (a TLS handshake under way, or nothing sent yet)
    /// (`api.maxUnansweredPerAddress`): the cheap way to hold slots is capped lower still.
    public var maxUnansweredPerAddress: Int

    /// A request body larger than this is refused (413).
    public static let maximumBodyBytes = 64 * 1024
    /// How long a request's body may take to arrive.
    public static let bodyTimeout: Duration = .seconds(10)
    /// A request head (the request line and the headers) larger than this closes the connection.
    public static let maximumHeaderBytes = 16 * 1024

    /// Settings with the defaults `pizzad.yaml(5)` gives; `host` nil keeps the API off unless systemd passes it.
    public init(
        host: String? = nil, port: Int = 8443, certificatePath: String? = nil, keyPath: String? = nil,
        idempotencyHours: Int = 48, requestsPerSecond: Int = 50, maxConnections: Int = 1024,
        idleTimeoutSeconds: Int = 75, failedAuthenticationsAllowed: Int = 10, maxConnectionsPerAddress: Int = 256,
        maxUnansweredPerAddress: Int = 64
    ) {
        self.host = host
        self.port = port
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.idempotencyHours = idempotencyHours
        self.requestsPerSecond = requestsPerSecond
        self.maxConnections = maxConnections
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.failedAuthenticationsAllowed = failedAuthenticationsAllowed
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxUnansweredPerAddress = maxUnansweredPerAddress
    }

    /// Whether TLS is configured.
    public var usesTLS: Bool { certificatePath != nil }

    /// How long a request's head may take to arrive.
    public var headerTimeoutSeconds: Int { max(1, min(10, idleTimeoutSeconds / 10)) }
}
