/// What leaves the shop (CONTRACT section 16): the kitchen's printers, the webhooks, and how hard they are tried.
public struct OutboxSettings: Sendable, Equatable {
    /// `printers:`, in the file's order.
    public var printers: [PrinterSettings]
    /// `webhooks:`, in the file's order.
    public var webhooks: [WebhookSettings]
    /// `outbox.retryScale`: the webhooks' retry schedule (5 s … 24 h) multiplied by this; 1 in a shop, small in tests.
    public var retryScale: Double
    /// `outbox.printerLimitMinutes`: a printer failing for longer than this is disabled until `pizzactl outbox retry`.
    public var printerLimitMinutes: Int
    /// `outbox.webhookTimeoutSeconds`: the longest one webhook attempt may take, connection included.
    public var webhookTimeoutSeconds: Int

    /// Settings with nothing configured, or the given destinations and limits.
    public init(
        printers: [PrinterSettings] = [], webhooks: [WebhookSettings] = [], retryScale: Double = 1,
        printerLimitMinutes: Int = 240, webhookTimeoutSeconds: Int = 10
    ) {
        self.printers = printers
        self.webhooks = webhooks
        self.retryScale = retryScale
        self.printerLimitMinutes = printerLimitMinutes
        self.webhookTimeoutSeconds = webhookTimeoutSeconds
    }

    /// Whether anything is configured.
    public var isEmpty: Bool { printers.isEmpty && webhooks.isEmpty }
}

/// One `printers:` entry: an ESC/POS network printer (raw TCP, usually port 9100).
public struct PrinterSettings: Sendable, Equatable {
    /// Its name, unique across printers and webhooks.
    public var name: String
    /// The printer's host (an IP address under systemd's drop-in).
    public var host: String
    /// Its TCP port (usually 9100).
    public var port: Int
    /// Characters per line: 32, 42 or 48.
    public var columns: Int
    /// The menu kinds it prints; nil for all. A ticket lists only these, and is not printed when none is ordered.
    public var kinds: Set<String>?
    /// The events it prints: `placed` (a kitchen ticket) and `cancelled` (a cancellation) by default.
    public var events: Set<OutboxEvent>
    /// Whether it prints each Z report (`reports: true`: the till's printer, not the kitchen's).
    public var reports: Bool

    /// A printer at `host`:`port`.
    public init(
        name: String, host: String, port: Int, columns: Int = 42, kinds: Set<String>? = nil,
        events: Set<OutboxEvent> = [.placed, .cancelled], reports: Bool = false
    ) {
        self.reports = reports
        self.name = name
        self.host = host
        self.port = port
        self.columns = columns
        self.kinds = kinds
        self.events = events
    }

    /// `HOST:PORT`, as configured.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// One `webhooks:` entry: an HTTPS endpoint that is sent each change as a signed Standard Webhooks `POST`.
public struct WebhookSettings: Sendable, Equatable {
    /// Its name, unique across printers and webhooks.
    public var name: String
    /// Where it is POSTed: https (http only with `allowPrivate`).
    public var url: String
    /// The file the secrets were read from.
    public var secretFile: String
    /// The secrets' key bytes (base64 after `whsec_`), one per line of the file; two while one rotates.
    public var secrets: [[UInt8]]
    /// The events it is sent; all by default.
    public var events: Set<OutboxEvent>
    /// Whether it may resolve to a loopback, link-local or private address (refused by default).
    public var allowPrivate: Bool

    /// A webhook at `url` signed with `secrets`.
    public init(
        name: String, url: String, secretFile: String, secrets: [[UInt8]],
        events: Set<OutboxEvent> = Set(OutboxEvent.allCases), allowPrivate: Bool = false
    ) {
        self.name = name
        self.url = url
        self.secretFile = secretFile
        self.secrets = secrets
        self.events = events
        self.allowPrivate = allowPrivate
    }
}

extension WebhookSettings {
    /// The key bytes of one line of a secret file (`whsec_` and base64), or nil when it is not a secret.
    public static func secretKey(fromLine line: String) -> [UInt8]? { WebhookSignature.key(fromSecret: line) }

    /// Whether `host` is an IP address (not a name) that is loopback, link-local or private.
    public static func isPrivateLiteral(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return PrivateAddresses.isLiteral(bare) && PrivateAddresses.isPrivate(bare)
    }
}
