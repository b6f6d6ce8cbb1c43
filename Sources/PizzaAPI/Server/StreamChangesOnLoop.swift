import HTTPTypes
import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import PizzaHTTPEdges

/// The changes ``ChangesOnLoop`` answers on HTTP/1.1, answered on an HTTP/2 connection from its frames: a change's
/// stream never becomes a channel. Sits between NIOHTTP2's frame handler and its stream multiplexer, which makes a
/// child channel for every other stream (a `GET`, a body larger than a stream's first window, anything it would not
/// take) as before, and Hummingbird's router answers there.
///
/// A child channel per stream, made and torn down for each request with its handlers, an async channel and a task,
/// was most of what an order cost over HTTP/2: twice and more HTTP/1.1's CPU (docs/PERFORMANCE.md, "HTTP/2 measured
/// with a client cheaper than the server"). Here a change's `HEADERS` start it, its `DATA` are its body, its end (or
/// trailers) runs it, and the answer goes back as one `HEADERS` and one `DATA` frame on the stream.
///
/// What NIOHTTP2's handler does before it stays as it is for every stream: the HPACK and frame limits, the stream
/// states, the connection's flow control (the multiplexer replenishes the connection's window as it is used, ours
/// included), content-length checks (a stream whose body does not match is reset there, and dropped here). A
/// change's body is taken within a stream's first window (65,535 bytes, so that it never waits for a window update
/// of ours), and within ``APISettings/bodyTimeout`` of its head, or the stream is reset, as ``RequestHeadDeadline``
/// closes a stream's channel.
final class StreamChangesOnLoop: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct Reading {
        var head: HTTPRequest
        var route: APIRoute.Match
        /// The body as it came: its first frame's bytes as they are, later ones appended to them.
        var body: ByteBuffer?
        let began: NIODeadline
    }

    private enum Stream {
        case reading(Reading)
        /// Read, its change under way.
        case answering
        /// Its answer written; kept until NIOHTTP2 says the stream closed, so that a late frame for it is not
        /// passed on to the multiplexer, which has never seen it.
        case answered
    }

    /// The largest body taken here: a stream's first window (RFC 9113, 6.9.2), so that a change's body never waits
    /// for a window update (the multiplexer sends those for its own streams only).
    static let largestBody = min(APISettings.maximumBodyBytes, 65_535)

    private let api: OrderAPI
    private let logger: Logger
    private let bodyTimeout: TimeAmount
    /// Tells the listener the connection made a request (its first-request deadline no longer applies).
    private let madeRequest: @Sendable (any Channel) -> Void
    private var streams: [HTTP2StreamID: Stream] = [:]
    private var toldRequest = false
    /// The peer's address and host, read from the connection at its first change.
    private var peer: (peer: String, host: String)?
    /// The body deadline's one timer for the connection, set while a change is being read.
    private var timer: Scheduled<Void>?

    init(
        api: OrderAPI, logger: Logger, bodyTimeout: TimeAmount,
        madeRequest: @escaping @Sendable (any Channel) -> Void
    ) {
        self.api = api
        self.logger = logger
        self.bodyTimeout = bodyTimeout
        self.madeRequest = madeRequest
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let id = frame.streamID
        if let stream = streams[id] {
            take(frame, of: id, stream, context)
            return
        }
        if case .headers(let headers) = frame.payload, id != .rootStream {
            // A request has begun: the connection is past its first deadline whoever answers it.
            if !toldRequest {
                toldRequest = true
                madeRequest(context.channel)
            }
            if let (head, route) = Self.change(headers.headers) {
                let reading = Reading(head: head, route: route, body: nil, began: .now())
                if headers.endStream {
                    answer(reading, id, context)
                } else {
                    streams[id] = .reading(reading)
                    armTimer(context)
                }
                return
            }
        }
        context.fireChannelRead(data)
    }

    /// A frame of a stream of ours: its body, its end; anything else NIOHTTP2's handler has already acted on.
    private func take(_ frame: HTTP2Frame, of id: HTTP2StreamID, _ stream: Stream, _ context: ChannelHandlerContext) {
        guard case .reading(var reading) = stream else { return }
        switch frame.payload {
        case .data(let data):
            if case .byteBuffer(let bytes) = data.data {
                if reading.body == nil {
                    reading.body = bytes
                } else {
                    reading.body?.writeImmutableBuffer(bytes)
                }
            }
            if (reading.body?.readableBytes ?? 0) > Self.largestBody {
                // Past what its Content-Length said (NIOHTTP2 resets such a stream too): not read further.
                reset(id, context)
            } else if data.endStream {
                answer(reading, id, context)
            } else {
                streams[id] = .reading(reading)
            }
        case .headers(let trailers) where trailers.endStream:
            answer(reading, id, context)
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A stream of ours closed (answered, or reset by the client or by NIOHTTP2); the multiplexer, which never
        // knew it, passes the event on as it does for any stream it does not hold.
        if let closed = event as? StreamClosedEvent { streams.removeValue(forKey: closed.streamID) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A stream of ours that NIOHTTP2 found at fault is reset there; its answer, if one comes, is dropped.
        if let streamError = error as? NIOHTTP2Errors.StreamError, streams[streamError.streamID] != nil {
            streams[streamError.streamID] = .answered
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        streams.removeAll()
        context.fireChannelInactive()
    }

    /// The change a stream's request headers ask for, as a request head, if it is one answered here: a `POST` (or
    /// the fulfilment's `PUT`) to a change's path with a body of known length within ``largestBody`` and no `Expect`
    /// (anything else, or anything odd, is the multiplexer's and the router's, which answer it as they would).
    static func change(_ fields: HPACKHeaders) -> (HTTPRequest, APIRoute.Match)? {
        var method: HTTPRequest.Method?
        var scheme: String?
        var authority: String?
        var path: String?
        var route: APIRoute.Match?
        var headerFields = HTTPFields()
        for (name, value, _) in fields {
            if name.utf8.first == UInt8(ascii: ":") {
                guard route == nil else { return nil }
                switch name {
                case ":method" where method == nil:
                    guard let known = HTTPRequest.Method(value), known == .post || known == .put else { return nil }
                    method = known
                case ":scheme" where scheme == nil: scheme = value
                case ":authority" where authority == nil: authority = value
                case ":path" where path == nil: path = value
                default: return nil
                }
                continue
            }
            if route == nil {
                // The pseudo-fields are first: the route is known before any other field is read.
                guard let method, let path, let known = APIRoute.Match(change: path, method: method) else {
                    return nil
                }
                route = known
                headerFields.reserveCapacity(fields.count)
            }
            guard let fieldName = HTTPField.Name(name) else { return nil }
            headerFields.append(HTTPField(name: fieldName, value: value))
        }
        guard let method, let path, let route, headerFields[.expect] == nil,
            let length = headerFields[.contentLength].flatMap({ Int($0) }), length <= largestBody
        else { return nil }
        let head = HTTPRequest(
            method: method, scheme: scheme, authority: authority, path: path, headerFields: headerFields)
        return (head, route)
    }

    private func answer(_ reading: Reading, _ id: HTTP2StreamID, _ context: ChannelHandlerContext) {
        streams[id] = .answering
        let peer = peer ?? APIRequestContext.peer(context.channel.remoteAddress)
        self.peer = peer
        let path = reading.head.path ?? ""
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ChangesOnLoop.change(
            reading.head, route: reading.route, body: reading.body, peer: peer, api: api, logger: logger,
            on: context.eventLoop
        ) { answer in
            bound.value.0.write(answer, id, path: path, bound.value.1)
        }
    }

    private func write(_ answer: APIAnswer, _ id: HTTP2StreamID, path: String, _ context: ChannelHandlerContext) {
        if let failure = answer.failure { logger.error("order API: POST \(path) failed: \(failure)") }
        // Reset meanwhile (by the client, or NIOHTTP2): nothing to answer.
        guard case .answering = streams[id] else { return }
        streams[id] = .answered
        var headers = HPACKHeaders()
        headers.reserveCapacity(answer.headers.count + 2)
        headers.add(name: ":status", value: String(answer.status.code))
        for field in answer.headers {
            headers.add(name: field.name.canonicalName, value: field.value)
        }
        headers.add(name: "content-length", value: String(answer.body.count))
        if answer.body.isEmpty {
            context.writeAndFlush(
                wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers, endStream: true)))),
                promise: nil)
            return
        }
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers)))), promise: nil)
        let body = context.channel.allocator.buffer(bytes: answer.body)
        context.writeAndFlush(
            wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(body), endStream: true)))),
            promise: nil)
    }

    /// Ends a stream of ours that is not answered (RST_STREAM, CANCEL), as a stream's channel closed would.
    private func reset(_ id: HTTP2StreamID, _ context: ChannelHandlerContext) {
        streams[id] = .answered
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
    }

    /// Sets the body deadline's timer for `deadline` (a change's head plus the body timeout), unless it is set.
    private func armTimer(_ context: ChannelHandlerContext, at deadline: NIODeadline? = nil) {
        guard timer == nil else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline ?? .now() + bodyTimeout) {
            let (handler, context) = bound.value
            handler.timer = nil
            handler.expire(context)
        }
    }

    /// Resets the changes whose bodies did not arrive within the deadline; sets the timer again for the oldest of
    /// the rest.
    private func expire(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        var late: [HTTP2StreamID] = []
        var next: NIODeadline?
        for (id, stream) in streams {
            guard case .reading(let reading) = stream else { continue }
            let deadline = reading.began + bodyTimeout
            if deadline <= now {
                late.append(id)
            } else {
                next = min(next ?? deadline, deadline)
            }
        }
        for id in late { reset(id, context) }
        if let next { armTimer(context, at: next) }
    }
}
