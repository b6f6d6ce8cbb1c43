import NIOCore
import NIOPosix
import PizzaProtocol
import PizzaWire

#if canImport(Glibc)
    import Glibc
#endif

/// Why the daemon could not be talked to.
public struct ClientError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// Nothing listens on the socket (no file, or a stale one).
        case notRunning
        /// The socket exists but this user may not open it.
        case permissionDenied
        /// No answer within the timeout.
        case timedOut
        /// The daemon closed the connection.
        case disconnected
        /// The daemon sent something that is not a response.
        case badResponse
    }

    /// Which way it failed.
    public let kind: Kind
    /// The socket that was tried.
    public let socket: String
    /// The system's or the daemon's words.
    public let detail: String

    /// The error in a sentence, with what to do.
    public var description: String {
        switch kind {
        case .notRunning:
            "cannot reach pizzad at \(socket) (\(detail)); start it with 'systemctl start pizzad' "
                + "or 'swift run pizzad', or name its socket with --socket or PIZZAD_SOCKET"
        case .permissionDenied:
            "no permission to open \(socket) (\(detail)); ask for membership of the socket's group "
                + "(see 'ls -l \(socket)') and log in again"
        case .timedOut: "pizzad at \(socket) did not answer within the timeout (\(detail))"
        case .disconnected: "pizzad at \(socket) closed the connection (\(detail))"
        case .badResponse: "pizzad at \(socket) sent an unreadable response (\(detail))"
        }
    }
}
