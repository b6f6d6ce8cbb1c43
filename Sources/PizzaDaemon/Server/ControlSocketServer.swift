import CSystemShims
import Foundation
import Logging
import NIOCore
import NIOPosix
import PizzaCore
import PizzaProtocol
import PizzaWire
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// The control socket: a Unix stream socket speaking JSON-RPC lines, served by SwiftNIO.
///
/// `bind()` takes the socket (a passed socket-activation descriptor, or a new file; a stale file left by a crash
/// is replaced, a live daemon's never); `run()` serves until graceful shutdown, then stops accepting, lets the
/// requests under way finish (bounded by `shutdown.graceSeconds`) and closes every connection.
final class ControlSocketServer: Service {
    /// Why the socket cannot be taken.
    struct BindError: Error, CustomStringConvertible {
        let description: String
    }

    private let configuration: DaemonConfiguration
    private let tracker: ConnectionTracker
    private let logger: Logger
    private let channel: any Channel
    /// Whether the socket file is ours to remove at exit (not when systemd passed the socket).
    private let ownsSocketFile: Bool
    /// Where the socket is, for messages.
    let path: String

    private init(
        configuration: DaemonConfiguration, tracker: ConnectionTracker, logger: Logger, channel: any Channel,
        path: String, ownsSocketFile: Bool
    ) {
        self.configuration = configuration
        self.tracker = tracker
        self.logger = logger
        self.channel = channel
        self.path = path
        self.ownsSocketFile = ownsSocketFile
    }

    /// Whether the accept loop is alive (for the watchdog).
    var isServing: Bool { channel.isActive }

    /// Takes the socket and starts accepting.
    static func bind(
        configuration: DaemonConfiguration, state: DaemonState, group: MultiThreadedEventLoopGroup,
        passed: SocketActivation.PassedSocket?, logger: Logger
    ) async throws -> ControlSocketServer {
        let tracker = ConnectionTracker { [state] open in state.connections.store(open, ordering: .relaxed) }
        let dispatcher = RPCDispatcher(state: state)
        let handBacks = AnswerHandBacks(group: group)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 * 1024, high: 1024 * 1024))
            .childChannelInitializer { [tracker, dispatcher, state, configuration, handBacks] channel in
                let open = tracker.opened(channel)
                return channel.eventLoop.makeCompletedFuture {
                    if open > configuration.maxConnections {
                        try channel.pipeline.syncOperations.addHandler(
                            OverloadedHandler(limit: configuration.maxConnections, metrics: state.daemonMetrics))
                        return
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionHandler(
                            dispatcher: dispatcher, state: state, tracker: tracker,
                            handBack: handBacks.of(channel.eventLoop)))
                }
            }
        if let activated = passed {
            let channel = try await bootstrap.withBoundSocket(activated.descriptor).get()
            let path = channel.localAddress?.pathname ?? "passed socket \(activated.name ?? "")"
            logger.info("serving on the socket passed by systemd", metadata: ["socket": "\(path)"])
            return ControlSocketServer(
                configuration: configuration, tracker: tracker, logger: logger, channel: channel, path: path,
                ownsSocketFile: false)
        }
        let path = configuration.socketPath
        try prepareSocketPath(path, logger: logger)
        let channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
        guard chmod(path, mode_t(configuration.socketMode)) == 0 else {
            throw BindError(
                description:
                    "cannot set mode \(String(configuration.socketMode, radix: 8)) on \(path): \(String(cString: strerror(errno)))"
            )
        }
        if let groupName = configuration.socketGroup {
            guard let gid = Peer.groupID(named: groupName) else {
                throw BindError(description: "socket.group '\(groupName)' does not exist")
            }
            guard chown(path, UInt32.max, gid) == 0 else {
                throw BindError(
                    description: "cannot give \(path) to group \(groupName): \(String(cString: strerror(errno)))")
            }
        }
        logger.info("serving", metadata: ["socket": "\(path)"])
        return ControlSocketServer(
            configuration: configuration, tracker: tracker, logger: logger, channel: channel, path: path,
            ownsSocketFile: true)
    }

    /// Makes the folder, and removes a stale socket file; refuses when a live daemon answers there.
    private static func prepareSocketPath(_ path: String, logger: Logger) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw BindError(description: "\(path) exists and is not a socket; remove it or choose another --socket")
        }
        if Self.answers(path) {
            throw BindError(
                description: "another pizzad is serving on \(path); stop it first (pizzactl status shows its pid)")
        }
        logger.notice("replacing a stale socket file left by an earlier run", metadata: ["socket": "\(path)"])
        unlink(path)
    }

    /// Whether something accepts connections on the socket at `path`.
    static func answers(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return pizzad_connect_unix(fd, path) == 0
    }

    /// Called once when graceful shutdown begins (the daemon tells systemd `STOPPING=1`).
    private let onShutdown = Locked<(@Sendable () -> Void)?>(nil)

    /// Sets what to call when graceful shutdown begins.
    func whenShuttingDown(_ action: @escaping @Sendable () -> Void) { onShutdown.withLock { $0 = action } }

    func run() async throws {
        try? await gracefulShutdown()
        onShutdown.withLock { $0 }?()
        logger.info("stopping: no new connections; waiting for requests under way")
        try? await channel.close()
        let idle = await tracker.waitForIdle(timeout: .seconds(configuration.shutdownGraceSeconds))
        if !idle {
            logger.warning(
                "shutdown grace of \(configuration.shutdownGraceSeconds)s ran out with \(tracker.requestsInFlight) requests under way"
            )
        }
        await tracker.closeAll()
        // Leave a passed socket alone; remove our own file so the next start finds no stale one.
        if ownsSocketFile { unlink(path) }
    }
}
