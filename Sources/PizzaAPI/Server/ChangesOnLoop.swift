import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import PizzaHTTPEdges

/// Answers the changing `POST`s (create, place, advance, cancel) on the connection's event loop with the
/// repository's callback, as the control socket answers `order.create`: no task, no async stream, no hop to another
/// executor per request. Hummingbird runs each request as tasks reading and writing through `NIOAsyncChannel`, which
/// cost an order over the API about as much CPU as the order itself (docs/PERFORMANCE.md, "The order API").
///
/// The answer is the same one Hummingbird's route gives: both ask ``DeviceAuthentication/identify`` and
/// ``OrderAPI/change(_:path:key:body:device:completion:)``. Every other request goes on to Hummingbird's router,
/// and so does a change that arrives while Hummingbird still owes an answer on the connection, so that a pipelined
/// connection's answers keep their requests' order; what arrives while a change here is answered waits until its
/// answer is written. The connection goes on reading meanwhile (stopping and starting reads costs two `epoll_ctl`
/// calls a request) until ``holdLimit`` bytes wait; then it reads no more until they are taken.
///
/// On an HTTP/1.1 connection the answer is written as bytes, head and body in one buffer, straight into the
/// HTTP/1 encoder's place in the pipeline (so it goes through what follows it: the write coalescer, TLS), not as
/// three HTTP parts converted and encoded on the way; in a pipeline without that encoder it is written as parts.
///
/// Added after ``RequestHeadDeadline`` (which sees every request and answer, so the idle and body deadlines hold for
/// these too), on HTTP/1.1 connections; an HTTP/2 connection's changes are ``StreamChangesOnLoop``'s, from its frames.
final class ChangesOnLoop: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What arrived while a change was answered here, in order.
    private enum Held {
        case part(HTTPRequestPart)
        case event(Any)
    }

    private struct Reading {
        var head: HTTPRequest
        var route: APIRoute.Match
        /// The body as it came: its first part as it is, later ones appended to it.
        var body: ByteBuffer?
    }

    private let api: OrderAPI
    private let logger: Logger
    /// Tells the listener the connection made a request (its first-request deadline no longer applies).
    private let madeRequest: @Sendable (any Channel) -> Void
    /// Requests handed on to Hummingbird whose answers have not ended.
    private var forwarded = 0
    /// The change being read, to be answered here.
    private var reading: Reading?
    /// A change read here and not yet answered.
    private var answering = false
    private var held: [Held] = []
    /// About how many bytes `held` keeps: its bodies, and a head or event as ``holdLimit`` / 64 each.
    private var heldBytes = 0
    /// A read the channel asked for while `held` was full, done once it is taken.
    private var readWanted = false
    /// Whether the listener was told of a request on this connection (once is enough).
    private var toldRequest = false
    /// The peer's address and host, read from the connection at its first change.
    private var peer: (peer: String, host: String)?

    /// The HTTP/1 encoder's context: an answer written there goes on as bytes. Nil without one (answers as parts).
    private var wire: ChannelHandlerContext?

    /// What may wait in `held` before the connection stops reading.
    static let holdLimit = 64 * 1024

    init(api: OrderAPI, logger: Logger, madeRequest: @escaping @Sendable (any Channel) -> Void) {
        self.api = api
        self.logger = logger
        self.madeRequest = madeRequest
    }

    func handlerAdded(context: ChannelHandlerContext) {
        wire = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) { wire = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if answering || !held.isEmpty {
            hold(.part(part))
        } else {
            take(part, context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The input's end or a graceful shutdown waits for the answer owed, as Hummingbird waits for its own.
        if answering || !held.isEmpty {
            hold(.event(event))
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func read(context: ChannelHandlerContext) {
        if heldBytes >= Self.holdLimit {
            readWanted = true
        } else {
            context.read()
        }
    }

    private func hold(_ item: Held) {
        held.append(item)
        heldBytes += Self.size(item)
    }

    private static func size(_ item: Held) -> Int {
        if case .part(.body(let bytes)) = item { return bytes.readableBytes }
        return holdLimit / 64
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), forwarded > 0 { forwarded -= 1 }
        context.write(data, promise: promise)
    }

    private func take(_ part: HTTPRequestPart, _ context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            // A request has begun: the connection is past its first deadline whoever answers it, told here on the
            // event loop as the head arrives (told from the responder's task, a busy machine closed a connection
            // whose request was waiting for that task to start).
            if !toldRequest {
                toldRequest = true
                madeRequest(context.channel)
            }
            if forwarded == 0, let route = Self.route(head) {
                reading = Reading(head: head, route: route, body: nil)
                return
            }
            forwarded += 1
        case .body(let bytes):
            if reading != nil {
                if reading?.body == nil {
                    reading?.body = bytes
                } else {
                    reading?.body?.writeImmutableBuffer(bytes)
                }
                return
            }
        case .end:
            if let request = reading {
                reading = nil
                answer(request, context)
                return
            }
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    /// The change a request head asks for, if it is one answered here: a `POST` (or the fulfilment's `PUT`) to a change's path with a body of
    /// known length within the limit and no `Expect` (anything else is the router's).
    private static func route(_ head: HTTPRequest) -> APIRoute.Match? {
        guard head.method == .post || head.method == .put, let path = head.path, head.headerFields[.expect] == nil,
            let length = head.headerFields[.contentLength].flatMap({ Int($0) }), length <= APISettings.maximumBodyBytes
        else { return nil }
        return APIRoute.Match(change: path, method: head.method)
    }

    private func answer(_ request: Reading, _ context: ChannelHandlerContext) {
        answering = true
        let closing = request.head.headerFields[.connection]?.lowercased() == "close"
        let peer = peer ?? APIRequestContext.peer(context.channel.remoteAddress)
        self.peer = peer
        let path = request.head.path ?? ""
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        Self.change(
            request.head, route: request.route, body: request.body, peer: peer, api: api, logger: logger,
            on: context.eventLoop
        ) { answer in
            bound.value.0.write(answer, path: path, closing: closing, bound.value.1)
        }
    }

    /// Identifies the device and makes the change `head` asks for (``OrderAPI/change(_:path:key:body:device:completion:)``,
    /// as Hummingbird's route does), then calls `done` with the answer on `eventLoop`: what the fast paths of
    /// HTTP/1.1 (this handler) and HTTP/2 (``StreamChangesOnLoop``) share. Called on `eventLoop`.
    static func change(
        _ head: HTTPRequest, route: APIRoute.Match, body: ByteBuffer?, peer: (peer: String, host: String),
        api: OrderAPI, logger: Logger, on eventLoop: any EventLoop, _ done: @escaping (APIAnswer) -> Void
    ) {
        let body = body.map { Array($0.readableBytesView) } ?? []
        let path = head.path ?? ""
        do {
            let device = try api.authentication.identify(
                head.headerFields, body: body, peer: peer.peer, peerHost: peer.host, logger: logger)
            let done = NIOLoopBound(done, eventLoop: eventLoop)
            api.change(
                route, path: path, key: try APIInput.idempotencyKey(head.headerFields),
                contentType: head.headerFields[.contentType], body: body, device: device
            ) { answer in
                if done.eventLoop.inEventLoop {
                    done.value(answer)
                } else {
                    done.eventLoop.execute { done.value(answer) }
                }
            }
        } catch {
            done(OrderAPI.answer(error))
        }
    }

    private func write(_ answer: APIAnswer, path: String, closing: Bool, _ context: ChannelHandlerContext) {
        if let failure = answer.failure { logger.error("order API: POST \(path) failed: \(failure)") }
        answering = false
        let promise = closing ? context.eventLoop.makePromise(of: Void.self) : nil
        if let wire {
            wire.writeAndFlush(
                NIOAny(IOData.byteBuffer(Self.bytes(answer, closing, context.channel.allocator))), promise: promise)
            context.triggerUserOutboundEvent(RequestHeadDeadline.AnswerWritten(), promise: nil)
        } else {
            var fields = answer.headers
            fields[.contentLength] = String(answer.body.count)
            if closing { fields[.connection] = "close" }
            context.write(
                wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: fields))), promise: nil)
            if !answer.body.isEmpty {
                context.write(
                    wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: answer.body))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
        }
        if let promise {
            let channel = context.channel
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
            held.removeAll()
            heldBytes = 0
            return
        }
        let replaying = !held.isEmpty
        while !answering, !held.isEmpty {
            let item = held.removeFirst()
            heldBytes -= Self.size(item)
            switch item {
            case .part(let part): take(part, context)
            case .event(let event): context.fireUserInboundEventTriggered(event)
            }
        }
        // What was read after a change is passed on outside a read: the async channel delivers it at read complete.
        if replaying { context.fireChannelReadComplete() }
        if readWanted, heldBytes < Self.holdLimit {
            readWanted = false
            context.read()
        }
    }

    /// `answer` as HTTP/1.1 puts it on the wire: status line, its headers, `Content-Length` (and `Connection: close`
    /// when `closing`), then the body, in one buffer.
    static func bytes(_ answer: APIAnswer, _ closing: Bool, _ allocator: ByteBufferAllocator) -> ByteBuffer {
        // Written piece by piece, no long string built on the way: the buffer is the only allocation (a number's
        // digits are a small string, kept inline).
        var buffer = allocator.buffer(capacity: 192 + answer.body.count)
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(answer.status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(answer.status.reasonPhrase)
        buffer.writeStaticString("\r\n")
        for field in answer.headers {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Content-Length: ")
        buffer.writeString(String(answer.body.count))
        buffer.writeStaticString(closing ? "\r\nConnection: close\r\n\r\n" : "\r\n\r\n")
        buffer.writeBytes(answer.body)
        return buffer
    }
}
