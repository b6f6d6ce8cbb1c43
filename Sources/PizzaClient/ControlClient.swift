public import NIOCore
import NIOPosix
public import PizzaProtocol
public import PizzaWire

#if canImport(Glibc)
    import Glibc
#endif

/// A connection to pizzad's control socket, speaking JSON-RPC lines over SwiftNIO.
///
/// Use it inside ``withConnection(socket:timeout:_:)``, which closes it afterwards. Calls go one at a time.
public final class ControlClient {
    private let socket: String
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var nextID: Int64 = 1

    private init(
        socket: String, inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) {
        self.socket = socket
        self.inbound = inbound
        self.outbound = outbound
    }

    /// Connects to `socket`, runs `body` with the connection, and closes it. `timeout` bounds the connect and
    /// every wait for a response (not the wait for events after `events.watch`).
    public static func withConnection<T>(
        socket: String, timeout: TimeAmount = .seconds(10), _ body: (ControlClient) async throws -> T
    ) async throws -> T {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .connect(unixDomainSocketPath: socket) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ResponseTimeoutHandler(timeout: timeout, socket: socket))
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder()))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw classify(error, socket: socket)
        }
        return try await channel.executeThenClose { inbound, outbound in
            let client = ControlClient(socket: socket, inbound: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(client)
        }
    }

    static func classify(_ error: any Error, socket: String) -> ClientError {
        if let io = error as? IOError {
            switch io.errnoCode {
            case EACCES, EPERM:
                return ClientError(
                    kind: .permissionDenied, socket: socket, detail: String(cString: strerror(io.errnoCode)))
            case ENOENT, ECONNREFUSED, ENOTDIR:
                return ClientError(kind: .notRunning, socket: socket, detail: String(cString: strerror(io.errnoCode)))
            default: return ClientError(kind: .notRunning, socket: socket, detail: "\(io)")
            }
        }
        if let clientError = error as? ClientError { return clientError }
        if error is ChannelError { return ClientError(kind: .timedOut, socket: socket, detail: "\(error)") }
        return ClientError(kind: .notRunning, socket: socket, detail: "\(error)")
    }

    /// Calls `method` (``RPCMethod``, spelled as the daemon's table spells it); see the form by name below.
    public func call(
        _ method: RPCMethod, _ params: [(String, JSONValue)] = [], onNotification: (JSONValue) -> Void = { _ in }
    ) async throws -> JSONValue {
        try await call(method.rawValue, params, onNotification: onNotification)
    }

    /// Calls `method` and returns its result; throws ``RPCError`` when the daemon refuses, ``ClientError`` when
    /// it cannot be reached. Notifications that arrive first are passed to `onNotification`.
    public func call(
        _ method: String, _ params: [(String, JSONValue)] = [],
        onNotification: (JSONValue) -> Void = { _ in }
    ) async throws -> JSONValue {
        let id = nextID
        nextID += 1
        let request = RPCRequest(id: .int(id), method: method, params: Params(params))
        do {
            try await outbound.write(ByteBuffer(string: request.line + "\n"))
        } catch {
            throw ClientError(kind: .disconnected, socket: socket, detail: "\(error)")
        }
        while true {
            let message = try await nextMessage()
            if message["method"] != nil, message["id"] == nil {
                onNotification(message)
                continue
            }
            if let error = message["error"] {
                guard let rpcError = RPCError(json: error) else {
                    throw ClientError(kind: .badResponse, socket: socket, detail: error.jsonText)
                }
                throw rpcError
            }
            guard message["id"] == .int(id) || message["id"] == .null, let result = message["result"] else {
                throw ClientError(kind: .badResponse, socket: socket, detail: message.jsonText)
            }
            return result
        }
    }

    /// The next message the daemon sends (for the event stream after `events.watch`); nil when it closed.
    public func nextNotification() async throws -> JSONValue? {
        do {
            return try await nextMessage()
        } catch let error as ClientError where error.kind == .disconnected {
            return nil
        }
    }

    private func nextMessage() async throws -> JSONValue {
        let line: ByteBuffer?
        do {
            line = try await inbound.next()
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(kind: .disconnected, socket: socket, detail: "\(error)")
        }
        guard let line else { throw ClientError(kind: .disconnected, socket: socket, detail: "end of stream") }
        do {
            return try JSONParser.parse(line.readableBytesView)
        } catch {
            throw ClientError(kind: .badResponse, socket: socket, detail: "\(error)")
        }
    }
}
