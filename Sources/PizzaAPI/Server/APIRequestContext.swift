public import Hummingbird
public import HummingbirdAuth
import NIOCore

/// A request's context on the order API: Hummingbird's own storage, the device it authenticated as, and the peer's
/// address (from the connection, before any proxy could say otherwise).
public struct APIRequestContext: AuthRequestContext, RequestContext {
    /// Hummingbird's own storage.
    public var coreContext: CoreRequestContextStorage
    /// Set by ``DeviceAuthentication`` once the request proved which device sent it.
    public var identity: DeviceIdentity?
    /// `192.0.2.7:53122`, `[2001:db8::7]:53122`, or `local` for a request made in process (tests).
    public let peer: String
    /// The peer's address without its port: what a lockout counts by.
    public let peerHost: String

    /// A request's context, its peer read from the connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        let remote = source.channel.remoteAddress
        if let host = remote?.ipAddress, let port = remote?.port {
            peerHost = host
            peer = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        } else {
            peerHost = "local"
            peer = "local"
        }
    }

    /// A body larger than this is refused (413).
    public var maxUploadSize: Int { APISettings.maximumBodyBytes }
}
