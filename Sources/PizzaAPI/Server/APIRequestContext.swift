public import Hummingbird
public import HummingbirdAuth
import NIOCore
import PizzaHTTPEdges

/// A request's context on the order API: Hummingbird's own storage, the device it authenticated as, and the peer's
/// address (from the connection, before any proxy could say otherwise).
public struct APIRequestContext: AuthRequestContext, RequestContext {
    /// Hummingbird's own storage.
    public var coreContext: CoreRequestContextStorage
    /// Set by ``DeviceAuthentication`` once the request proved which device sent it.
    public var identity: DeviceIdentity?
    /// The route of ``APIRoute/all`` the request is for, set by ``AllowedMethods``; nil for a path it does not have.
    var route: APIRoute.Match?
    /// `192.0.2.7:53122`, `[2001:db8::7]:53122`, or `local` for a request made in process (tests).
    public let peer: String
    /// The peer's address without its port: what a lockout counts by.
    public let peerHost: String

    /// A request's context, its peer read from the connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        (peer, peerHost) = Self.peer(source.channel.remoteAddress)
    }

    /// `remote` as a change records it, and its host alone; `local` without an IP address (a test in process).
    static func peer(_ remote: SocketAddress?) -> (peer: String, host: String) {
        guard let host = remote?.ipAddress, let port = remote?.port else { return ("local", "local") }
        return (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)", host)
    }

    /// The device the request authenticated as; ``RouteAccess`` has checked its right for the route.
    var device: DeviceIdentity {
        get throws {
            guard let identity else { throw Problem.unauthenticated("no device authenticated") }
            return identity
        }
    }

    /// A body larger than this is refused (413).
    public var maxUploadSize: Int { APISettings.maximumBodyBytes }
}
