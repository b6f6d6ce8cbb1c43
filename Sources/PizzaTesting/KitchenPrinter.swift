import Locking
import NIOCore
import NIOPosix

/// A network printer speaking ESC/POS on a TCP port of this machine, for tests: it answers real-time status queries
/// (`DLE EOT 1`, `2`, `4`) from the state a test sets (ready, paper out, cover open, offline), decodes what it is sent
/// (code page 858, styles dropped) into text, and keeps each ticket up to its cut. It can be switched off (the port
/// refuses) and on again on the same port, or made to accept connections and never read.
public final class KitchenPrinter: Sendable {
    /// What the printer answers to a status query.
    public enum State: Sendable {
        case ready, paperOut, coverOpen, offline
    }

    /// The port it listens on (the same after ``switchOff()`` and ``switchOn()``).
    public let port: Int
    private let shared = Locked(Shared())
    private let server = Locked<(any Channel)?>(nil)

    private struct Shared {
        var state = State.ready
        var tickets: [String] = []
        var neverRead = false
        var paperOutAfterTicket = false
        var connections = 0
    }

    /// A printer listening on 127.0.0.1 (on `port`, or a free one).
    public init(port: Int = 0) async throws {
        let channel = try await Self.listen(port: port, shared: shared)
        self.port = channel.localAddress?.port ?? port
        server.withLock { $0 = channel }
    }

    /// The tickets printed so far, each as text, in order.
    public var tickets: [String] { shared.withLock { $0.tickets } }

    /// Connections accepted so far (status queries included).
    public var connections: Int { shared.withLock { $0.connections } }

    /// Sets what it answers from now on.
    public func set(_ state: State) { shared.withLock { $0.state = state } }

    /// The next ticket prints, and then the paper is out (as the status after it says).
    public func outOfPaperAfterNextTicket() { shared.withLock { $0.paperOutAfterTicket = true } }

    /// From now on, accepts connections and neither reads nor answers.
    public func neverRead(_ value: Bool) { shared.withLock { $0.neverRead = value } }

    /// Stops listening: connections are refused, as when the printer is off.
    public func switchOff() async throws {
        let channel = server.withLock { channel in
            defer { channel = nil }
            return channel
        }
        try await channel?.close()
    }

    /// Listens again on the same port.
    public func switchOn() async throws {
        let channel = try await Self.listen(port: port, shared: shared)
        server.withLock { $0 = channel }
    }

    /// Stops it for good.
    public func stop() async { try? await switchOff() }

    private static func listen(port: Int, shared: Locked<Shared>) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let neverRead = shared.withLock { shared in
                    shared.connections += 1
                    return shared.neverRead
                }
                return channel.eventLoop.makeCompletedFuture {
                    if neverRead {
                        try channel.syncOptions?.setOption(.autoRead, value: false)
                        return
                    }
                    try channel.pipeline.syncOperations.addHandler(Decoder(shared: shared))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
    }

    /// Reads ESC/POS: commands are consumed (status queries answered), text is kept, a cut ends a ticket.
    private final class Decoder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let shared: Locked<Shared>
        var pending: [UInt8] = []
        var text: [Unicode.Scalar] = []

        init(shared: Locked<Shared>) { self.shared = shared }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            pending += unwrapInboundIn(data).readableBytesView
            var index = 0
            var answers: [UInt8] = []
            parsing: while index < pending.count {
                let byte = pending[index]
                // The bytes each command takes after its first, when all have arrived.
                func need(_ count: Int) -> Bool { index + count < pending.count }
                switch byte {
                case 0x10:  // DLE EOT n
                    guard need(2) else { break parsing }
                    answers.append(status(pending[index + 2]))
                    index += 3
                case 0x1B:  // ESC @ (1), ESC t n / ESC a n / ESC E n (2)
                    guard need(1) else { break parsing }
                    if pending[index + 1] == 0x40 {
                        index += 2
                    } else {
                        guard need(2) else { break parsing }
                        index += 3
                    }
                case 0x1D:  // GS ! n, GS V m n (a cut)
                    guard need(2) else { break parsing }
                    if pending[index + 1] == 0x56 {
                        guard need(3) else { break parsing }
                        let ticket = String(String.UnicodeScalarView(text))
                        text = []
                        shared.withLock { shared in
                            shared.tickets.append(ticket)
                            if shared.paperOutAfterTicket {
                                shared.paperOutAfterTicket = false
                                shared.state = .paperOut
                            }
                        }
                        index += 4
                    } else {
                        index += 3
                    }
                case 0x0A:
                    text.append("\n")
                    index += 1
                case 0x80...:
                    text.append(Self.page858[Int(byte) - 0x80])
                    index += 1
                default:
                    if byte >= 0x20 { text.append(Unicode.Scalar(byte)) }
                    index += 1
                }
            }
            pending.removeFirst(index)
            if !answers.isEmpty { context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answers)), promise: nil) }
        }

        /// The answer to `DLE EOT n` in the current state.
        func status(_ query: UInt8) -> UInt8 {
            let state = shared.withLock { $0.state }
            switch (query, state) {
            case (1, .offline), (1, .paperOut), (1, .coverOpen): return 0x12 | 0x08
            case (2, .coverOpen): return 0x12 | 0x04
            case (2, .paperOut): return 0x12 | 0x20
            case (4, .paperOut): return 0x12 | 0x60
            default: return 0x12
            }
        }

        static let page858: [Unicode.Scalar] = Array(
            ("ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈ€ÍÎÏ┘┌█▄¦Ì▀"
                + "ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u{AD}±‗¾¶§÷¸°¨·¹³²■\u{A0}").unicodeScalars)
    }
}
