/// The order API's keys (`api.*`, CONTRACT section 15), one constant each; listed in ``ConfigurationSchema/keys``.
extension ConfigurationKey {
    /// `api.listen`.
    static let apiListen = ConfigurationKey(
        path: "api.listen", kind: .text, defaultText: "off",
        allowed: "HOST:PORT with an IP address or localhost, e.g. 0.0.0.0:8443, [::]:8443 or 127.0.0.1:8443",
        applied: .onRestart,
        summary:
            "The order API for tills, the online shop and delivery platforms (CONTRACT section 15). Beyond loopback "
            + "only with api.tls.certificate and api.tls.key. Under systemd, enable pizzad-api.socket instead.")

    /// `api.tls.certificate`.
    static let apiCertificate = ConfigurationKey(
        path: "api.tls.certificate", kind: .text, defaultText: "none (plain HTTP, loopback only)",
        allowed: "a readable file holding the PEM certificate and its chain", applied: .onRestart,
        summary: "The order API's certificate; its SHA-256 fingerprint is what pizzactl device add prints for tills.")

    /// `api.tls.key`.
    static let apiKey = ConfigurationKey(
        path: "api.tls.key", kind: .text, defaultText: "none", allowed: "a readable file holding the PEM private key",
        applied: .onRestart, summary: "The private key of api.tls.certificate.")

    /// `api.idempotencyHours`.
    static let apiIdempotencyHours = ConfigurationKey(
        path: "api.idempotencyHours", kind: .integer(range: 1...720, noun: "a whole number of hours"),
        defaultValue: "48", allowed: "", applied: .onRestart,
        summary:
            "How long the answer to an Idempotency-Key is kept: longer than a till's longest time offline, so that "
            + "its retry is answered, not made twice.")

    /// `api.requestsPerSecond`.
    static let apiRequestsPerSecond = ConfigurationKey(
        path: "api.requestsPerSecond", kind: .integer(range: 1...100_000, noun: "a whole number of requests"),
        defaultValue: "50", allowed: "", applied: .onRestart,
        summary: "Requests one device may make a second on average (twice as many in a burst); beyond, 429.")

    /// `api.lockoutAfterFailures`.
    static let apiLockoutAfterFailures = ConfigurationKey(
        path: "api.lockoutAfterFailures", kind: .integer(range: 1...100_000, noun: "a whole number of failures"),
        defaultValue: "10", allowed: "", applied: .onRestart,
        summary:
            "Different wrong credentials from one address within a minute before its failures are answered 429 with "
            + "Retry-After for a minute (a valid token from it is still served): a token cannot be guessed at speed.")

    /// `api.maxConnections`.
    static let apiMaxConnections = ConfigurationKey(
        path: "api.maxConnections", kind: .integer(range: 1...100_000, noun: "a whole number"),
        defaultValue: "1024", allowed: "", applied: .onRestart,
        summary: "Connections to the order API beyond this many are answered 503 and closed.")

    /// `api.maxConnectionsPerAddress`.
    static let apiMaxConnectionsPerAddress = ConfigurationKey(
        path: "api.maxConnectionsPerAddress", kind: .integer(range: 1...100_000, noun: "a whole number"),
        defaultValue: "256", allowed: "", applied: .onRestart,
        summary:
            "Connections from one address (an IPv6 one by its /64) beyond this many are closed at once, so that one "
            + "address cannot take every slot of api.maxConnections.")

    /// `api.maxUnansweredPerAddress`.
    static let apiMaxUnansweredPerAddress = ConfigurationKey(
        path: "api.maxUnansweredPerAddress", kind: .integer(range: 1...100_000, noun: "a whole number"),
        defaultValue: "64", allowed: "", applied: .onRestart,
        summary:
            "Connections from one address that have made no request yet (a TLS handshake under way, or nothing "
            + "sent) beyond this many are closed at once.")

    /// `api.idleTimeoutSeconds`.
    static let apiIdleTimeoutSeconds = ConfigurationKey(
        path: "api.idleTimeoutSeconds", kind: .integer(range: 5...3600, noun: "a whole number of seconds"),
        defaultValue: "75", allowed: "", applied: .onRestart,
        summary:
            "A connection with no request for this long is closed; a request's headers must arrive within a tenth "
            + "of it (at most 10 s).")
}
