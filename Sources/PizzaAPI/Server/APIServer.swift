import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
public import NIOPosix
import NIOSSL
import PizzaCore
import PizzaHTTPEdges
public import ServiceLifecycle

/// The order API's listener: on `api.listen`, or on the socket systemd passes (`pizzad-api.socket`, which lets the
/// service keep `PrivateNetwork=yes`), with TLS 1.2 or newer, offering HTTP/2 and HTTP/1.1 (ALPN), or plain HTTP/1.1
/// on a loopback address.
///
/// The listener is ``HTTPListener`` (as the board's and the metrics'), each connection Hummingbird's HTTP/1.1 channel
/// running the router, or over TLS ``APIChannel`` (HTTP/2 or HTTP/1.1 as ALPN settles it). It runs on NIO's shared event loops, which are also Swift concurrency's executor in pizzad: Hummingbird's
/// handlers are tasks, and a connection on loops of its own made every request and answer hop between two pools
/// (measured in docs/PERFORMANCE.md, "The order API"). What keeps a flood, a slow client or a handshake from
/// holding the control socket is the limits (connections, deadlines, rates), not threads of its own.
public final class APIServer: Service {
    /// What the API serves on: an address, or the socket systemd passed.
    public typealias Listener = HTTPListener.Socket

    /// Why the API could not start: named, for the log and the exit.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong, naming the key or the file.
        public let description: String
        /// Whether the configuration is at fault (exit 78, which systemd does not restart), not the moment (a port
        /// taken).
        public let isConfiguration: Bool

        /// An error saying `description`.
        public init(description: String, isConfiguration: Bool = true) {
            self.description = description
            self.isConfiguration = isConfiguration
        }
    }

    /// Checks what the API's configuration names on disk, as a start would read it: the certificate and key read and
    /// belonging together. `pizzad check-config` and the start ask it before anything else, so a missing or wrong
    /// file is exit 78 (systemd does not restart it), not a start that fails again and again.
    public static func checkFiles(_ settings: APISettings) throws(StartError) {
        guard let certificatePath = settings.certificatePath else { return }
        guard let keyPath = settings.keyPath else {
            throw StartError(description: "api.tls.certificate is set but api.tls.key is not")
        }
        _ = try ServedCertificate(certificatePath: certificatePath, keyPath: keyPath)
    }

    private let listener: HTTPListener
    /// Where it listens: `127.0.0.1:8443`, `[::]:8443`.
    public let address: String
    /// `https` or `http`.
    public let scheme: String

    /// Binds the listener; the connections are served once ``run()`` runs, on `group`'s loops.
    public init(
        api: OrderAPI, listener: Listener, group: MultiThreadedEventLoopGroup = .singleton, logger: Logger
    ) async throws {
        let settings = api.settings
        if let certificatePath = settings.certificatePath, let keyPath = settings.keyPath {
            let served = try ServedCertificate(certificatePath: certificatePath, keyPath: keyPath)
            api.servedCertificate.withLock { $0 = served }
        }
        let tls = try Self.tlsConfiguration(settings, api.servedCertificate.withLock { $0 })
        if tls == nil {
            guard case .address(let host, _) = listener, Self.isLoopback(host) else {
                throw StartError(
                    description:
                        "the order API serves plain HTTP only on a loopback address: set api.tls.certificate and "
                        + "api.tls.key (PEM files) to listen beyond it")
            }
        }
        scheme = tls == nil ? "http" : "https"
        let responder = try api.router().buildResponder()
        let connections = ConnectionCount(
            limit: settings.maxConnections, perAddress: settings.maxConnectionsPerAddress,
            unansweredPerAddress: settings.maxUnansweredPerAddress)
        let answer: HTTPChannelHandler.Responder = { request, writer, channel in
            let context = APIRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
            let response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch {
                let problem = Problem.from(error)
                if let logged = problem.logged {
                    logger.error(
                        "order API: \(request.method) \(request.uri.path) failed: \(logged)",
                        metadata: ["request": "\(problem.requestId ?? "-")"])
                }
                response = problem.response
            }
            try await writer.write(response: response.head, body: response.body)
        }
        let head = TimeAmount.seconds(Int64(settings.headerTimeoutSeconds))
        let idle = TimeAmount.seconds(Int64(settings.idleTimeoutSeconds))
        let body = TimeAmount.seconds(APISettings.bodyTimeout.components.seconds)
        // The idle deadline is RequestHeadDeadline's, which also sees the changes answered on the event loop (so
        // Hummingbird's own, which does not, is off).
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                RequestHeadDeadline(first: head, next: idle, body: body),
                ChangesOnLoop(api: api, logger: logger) { connections.madeRequest(on: $0) },
            ], idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: APISettings.maximumHeaderBytes, maxHeaderListSize: APISettings.maximumHeaderBytes,
                maxHeaderFieldCount: 100))
        let bound: HTTPListener
        do {
            if let tls {
                let child = try APIChannel(
                    tlsConfiguration: tls, http1: HTTP1Channel(responder: answer, configuration: http1),
                    idleTimeout: idle,
                    // A stream the router answers has the request deadlines HTTP/1.1 has; the changes taken from
                    // the frames have the body's.
                    streamHandlers: { [RequestHeadDeadline(first: head, next: idle, body: body)] },
                    changes: {
                        StreamChangesOnLoop(api: api, logger: logger, bodyTimeout: body) {
                            connections.madeRequest(on: $0)
                        }
                    })
                bound = try await Self.bind(
                    child, listener, group, connections, .seconds(2 * Int64(settings.headerTimeoutSeconds)), logger)
            } else {
                bound = try await Self.bind(
                    HTTP1Channel(responder: answer, configuration: http1), listener, group, connections,
                    .seconds(2 * Int64(settings.headerTimeoutSeconds)), logger)
            }
        } catch {
            throw StartError(description: "cannot listen for the order API: \(error)", isConfiguration: false)
        }
        address = bound.address
        self.listener = bound
    }

    /// Serves until the graceful shutdown, then closes the listener.
    public func run() async throws {
        await withGracefulShutdownHandler {
            await listener.serve()
        } onGracefulShutdown: { [listener] in
            Task { await listener.close() }
        }
    }

    private static func bind<Child: ServerChildChannel>(
        _ child: Child, _ listener: Listener, _ group: MultiThreadedEventLoopGroup, _ connections: ConnectionCount,
        _ firstRequest: TimeAmount, _ logger: Logger
    ) async throws -> HTTPListener {
        try await HTTPListener.bind(child, on: listener, name: "order API", group: group, logger: logger) { channel in
            let refusal = connections.admit(channel, host: channel.remoteAddress?.ipAddress ?? "unknown")
            if refusal == .address {
                // One address past its share: closed without a word (it holds the others' slots, or tries to).
                return channel.close().flatMap { channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
            }
            guard refusal == nil else {
                // Answered 503 once it is active (a write before then is lost: this answered nothing until a test
                // looked), in front of whatever the setup adds, and closed; not counted. Plain text to a TLS
                // client is noise; it is closed either way.
                let value = child.setup(channel: channel, logger: logger)
                try? channel.pipeline.syncOperations.addHandler(RefusedConnection(), position: .first)
                return value
            }
            channel.closeFuture.whenComplete { _ in connections.closed(channel) }
            connections.closeIfSilent(channel, after: firstRequest)
            let value = child.setup(channel: channel, logger: logger)
            // The TLS handler is the setup's first, added at once; each answer leaves it as one record. The byte
            // watch goes before the HTTP decoder: after TLS, or first for plain HTTP.
            if let tls = try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self) {
                try? channel.pipeline.syncOperations.addHandler(RequestBytesWatch(), position: .after(tls))
                try? channel.pipeline.syncOperations.addHandler(WriteCoalescer(), position: .after(tls))
            } else {
                try? channel.pipeline.syncOperations.addHandler(RequestBytesWatch(), position: .first)
            }
            return value
        }
    }

    /// TLS 1.2 or newer with forward-secret AEAD ciphers only, from the configured PEM files (re-read on reload:
    /// ``ServedCertificate``); nil without them.
    static func tlsConfiguration(_ settings: APISettings, _ served: ServedCertificate?) throws -> TLSConfiguration? {
        guard settings.certificatePath != nil else { return nil }
        guard let served else {
            throw StartError(description: "api.tls.certificate is set but api.tls.key is not")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: served.chain.map { .certificate($0) }, privateKey: .privateKey(served.key))
        configuration.sslContextCallback = served.callback
        configuration.minimumTLSVersion = .tlsv12
        // A connection pizzad closes (an answer to `Connection: close`, a refusal, a deadline) sends its close_notify
        // and is gone: NIOSSL's default waits 5 s for the client's, reading nothing meanwhile, so each such
        // connection sat in CLOSE-WAIT holding one of its address's api.maxConnectionsPerAddress slots (a till
        // reconnecting for every order was refused after 256 in those 5 s). The data sent before it is not lost: a
        // close writes and flushes it first, and RFC 8446 (6.1) does not ask the closing side to wait.
        configuration.shutdownTimeout = .zero
        configuration.cipherSuites = [
            "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
            "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
        ].joined(separator: ":")
        return configuration
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`).
    static func isLoopback(_ host: String) -> Bool { host.hasPrefix("127.") || host == "::1" || host == "localhost" }
}
