import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PizzaCore
import PizzaProtocol
import PizzaStorage

/// A webhook as the outbox sends to it: each change of its events as a Standard Webhooks `POST` (CONTRACT section
/// 16), its body the change's `events.watch` params, its id the same on every attempt, its timestamp and signature
/// those of the attempt. 2xx is delivered; 410 disables it; anything else, a redirect included, is tried again on
/// ``RetrySchedule`` (a 429's or 503's `Retry-After` honoured).
final class WebhookDestination: Destination {
    let settings: WebhookSettings
    private let clients: PinnedClients
    /// Looks a host's name up (the system's resolver; a test's own).
    private let resolve: @Sendable (String) -> [String]
    private let schedule: RetrySchedule
    private let timeout: Duration
    /// What makes the ids of this database's messages its own: its shop key's first characters.
    private let idPrefix: String

    init(
        settings: WebhookSettings, clients: PinnedClients, schedule: RetrySchedule, timeout: Duration, shopKey: String,
        resolve: @escaping @Sendable (String) -> [String] = PrivateAddresses.lookUp
    ) {
        self.settings = settings
        self.clients = clients
        self.resolve = resolve
        self.schedule = schedule
        self.timeout = timeout
        idPrefix = "msg_" + shopKey.prefix(12)
    }

    var name: String { settings.name }
    var kind: DestinationKind { .webhook }
    var events: Set<OutboxEvent> { settings.events }
    var marksAttempts: Bool { false }
    /// Failing for longer than the schedule's whole length (three days and more) disables it: a budget of time.
    var failureLimit: Duration? { schedule.total }
    var idleInterval: Duration { .seconds(60) }

    func wants(_ entry: AuditEntry) -> Bool { !OutboxEvent.events(of: entry).isDisjoint(with: settings.events) }

    /// `webhook-id`: the same for this webhook and this audit entry on every attempt, and never another entry's
    /// (CONTRACT section 16): a restore from an older copy makes `seq` again for another change, so the entry's own
    /// hash (over its time, actor and order) is part of it.
    func messageID(seq: Int64, hash: String) -> String { "\(idPrefix)_\(settings.name)_\(seq)_\(hash.prefix(16))" }

    func deliver(_ entry: AuditEntry, again: Bool) async -> DeliveryOutcome {
        let client: HTTPClient
        switch await PrivateAddresses.pin(url: settings.url, allowPrivate: settings.allowPrivate, resolve: resolve) {
        case .refused(let why): return .failed(why)
        case .address(let host, let address): client = clients.client(host: host, address: address)
        }
        let body =
            if entry.orderID == nil, let kind = ShopChange.Kind(rawValue: entry.action) {
                RPCResponse.shopEventParams(
                    seq: entry.seq, at: entry.at, kind: entry.action, member: kind.eventMember, text: entry.after)
            } else {
                RPCResponse.eventParams(seq: entry.seq, at: entry.at, kind: entry.action, orderText: entry.after)
            }
        let id = messageID(seq: entry.seq, hash: entry.hash)
        let timestamp = Timestamp.now().millisecondsSince1970 / 1000
        var request = HTTPClientRequest(url: settings.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "pizzad/\(PizzadVersion.current)")
        request.headers.add(name: "webhook-id", value: id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(
            name: "webhook-signature",
            value: WebhookSignature.header(id: id, timestamp: timestamp, body: body, secrets: settings.secrets))
        request.body = .bytes(ByteBuffer(bytes: body))
        let deadline = NIODeadline.now() + .milliseconds(timeout.milliseconds)
        do {
            let response = try await client.execute(request, deadline: deadline)
            // The answer's body is not needed; it is read (a little of it) so the connection can be used again.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            switch status {
            case 200..<300: return .delivered
            case 410: return .gone("HTTP 410 Gone")
            case 300..<400:
                return .failed(
                    "HTTP \(status): redirects are not followed (to \(response.headers.first(name: "location") ?? "?"))"
                )
            case 429, 503:
                let wait = response.headers.first(name: "retry-after").flatMap(Self.retryAfter)
                return .failed("HTTP \(status)", retryAfter: wait)
            default: return .failed("HTTP \(status)")
            }
        } catch {
            return .failed(Self.describe(error))
        }
    }

    func delay(afterFailures failures: Int, outcome: DeliveryOutcome) -> Duration? {
        var retryAfter: Duration?
        if case .failed(_, let wish) = outcome { retryAfter = wish }
        return schedule.wait(afterFailures: failures, retryAfter: retryAfter)
    }

    func idle() async {}

    /// `Retry-After` as seconds, or as an HTTP date.
    static func retryAfter(_ value: String) -> Duration? {
        if let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSinceNow.rounded(.up))))
    }

    /// An error of the HTTP client in a few words: timeouts, refusals and TLS by name.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout: return "timed out"
            case .connectTimeout: return "connection timed out"
            case .remoteConnectionClosed: return "the receiver closed the connection"
            default: return "\(error)"
            }
        }
        if error is CancellationError { return "no answer (the connection could not be made)" }
        return "\(error)"
    }
}
