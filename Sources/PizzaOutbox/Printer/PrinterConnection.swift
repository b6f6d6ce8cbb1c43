import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// One conversation with an ESC/POS network printer over raw TCP: connect, ask its real-time status (`DLE EOT`),
/// and when it is ready, send a ticket and ask again, so that an answer after the ticket says the printer took it.
/// Every step has a deadline (the connection is closed when it passes), so a printer that accepts the connection and
/// never reads holds nobody.
struct PrinterConnection: Sendable {
    /// Why a print did not happen, or may not have.
    enum Failure: Error, CustomStringConvertible {
        /// It could not be reached: nothing was sent.
        case unreachable(String)
        /// It answered that it cannot print now: nothing was sent.
        case notReady(EscPos.Status)
        /// The ticket was sent (or partly), and no confirmation came: it may be on paper.
        case outcomeUnknown(String)

        var description: String {
            switch self {
            case .unreachable(let why): "unreachable: \(why)"
            case .notReady(let status): status.words
            case .outcomeUnknown(let why): "outcome unknown: \(why)"
            }
        }
    }

    var host: String
    var port: Int
    var connectTimeout: Duration = .seconds(3)
    /// How long the printer has to answer a status query.
    var answerTimeout: Duration = .seconds(3)
    /// How long a ticket may take to be taken and confirmed.
    var printTimeout: Duration = .seconds(10)

    /// The printer's status now.
    func status() async -> EscPos.Status {
        do {
            return try await converse(ticket: nil)
        } catch .notReady(let status) {
            return status
        } catch {
            return .unreachable
        }
    }

    /// Prints `bytes` if the printer is ready; returns its status after.
    func print(_ bytes: [UInt8]) async throws(Failure) -> EscPos.Status { try await converse(ticket: bytes) }

    private func converse(ticket: [UInt8]?) async throws(Failure) -> EscPos.Status {
        let channel: any Channel
        do {
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(connectTimeout.milliseconds))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Answers()) }
                }
            // An IP address is connected to as it is: no name lookup (which under systemd may need more than the
            // drop-in opens).
            if let address = try? SocketAddress(ipAddress: host, port: port) {
                channel = try await bootstrap.connect(to: address).get()
            } else {
                channel = try await bootstrap.connect(host: host, port: port).get()
            }
        } catch {
            throw .unreachable(Self.describe(error, connectTimeout: connectTimeout))
        }
        defer { channel.close(promise: nil) }
        let queries = EscPos.StatusQuery.allCases.flatMap(\.bytes)
        let before: [UInt8]
        do {
            before = try await exchange(queries, on: channel, within: answerTimeout)
        } catch {
            throw .unreachable(error.description)
        }
        let status = EscPos.Status(printer: before[0], offlineCause: before[1], paper: before[2])
        guard let ticket else { return status }
        guard status == .online else { throw .notReady(status) }
        let after: [UInt8]
        do {
            after = try await exchange(ticket + queries, on: channel, within: printTimeout)
        } catch {
            throw .outcomeUnknown(error.description)
        }
        let printed = EscPos.Status(printer: after[0], offlineCause: after[1], paper: after[2])
        // Paper that ran out, or a cover opened, while the ticket printed may have cut it short.
        if printed == .paperOut || printed == .coverOpen {
            throw .outcomeUnknown("\(printed.words) while printing")
        }
        return printed
    }

    /// Sends `bytes` (ending in the three status queries) and returns the three answers; closes the connection and
    /// throws when they do not all come within `limit`.
    private func exchange(_ bytes: [UInt8], on channel: any Channel, within limit: Duration) async throws(Silence)
        -> [UInt8]
    {
        let answers = channel.eventLoop.makePromise(of: [UInt8].self)
        let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(limit.milliseconds)) {
            answers.fail(Silence(description: "no answer within \(limit.milliseconds) ms"))
            channel.close(promise: nil)
        }
        channel.pipeline.handler(type: Answers.self).whenComplete { result in
            switch result {
            case .success(let handler): handler.expect(3, answers)
            case .failure(let error): answers.fail(error)
            }
        }
        channel.writeAndFlush(ByteBuffer(bytes: bytes)).whenFailure { answers.fail($0) }
        defer { deadline.cancel() }
        do {
            return try await answers.futureResult.get()
        } catch let silence as Silence {
            throw silence
        } catch {
            throw Silence(description: "\(error)")
        }
    }

    /// A connection failure in a few words: `connection refused`, `no connection within 3000 ms`.
    static func describe(_ error: any Error, connectTimeout: Duration) -> String {
        var error = error
        if let failed = error as? NIOConnectionError, let first = failed.connectionErrors.first?.error {
            error = first
        }
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)).lowercased() }
        if let channel = error as? ChannelError, case .connectTimeout = channel {
            return "no connection within \(connectTimeout.milliseconds) ms"
        }
        return "\(error)"
    }

    /// No answer, or an error instead of one.
    struct Silence: Error, CustomStringConvertible {
        var description: String
    }

    /// Collects the printer's status answers and hands them to whoever waits for them.
    private final class Answers: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private var received: [UInt8] = []
        private var waiter: (count: Int, promise: EventLoopPromise<[UInt8]>)?

        func expect(_ count: Int, _ promise: EventLoopPromise<[UInt8]>) {
            waiter = (count, promise)
            deliver()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += unwrapInboundIn(data).readableBytesView
            deliver()
        }

        func channelInactive(context: ChannelHandlerContext) {
            waiter?.promise.fail(Silence(description: "the printer closed the connection"))
            waiter = nil
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            waiter?.promise.fail(error)
            waiter = nil
            context.close(promise: nil)
        }

        private func deliver() {
            guard let (count, promise) = waiter, received.count >= count else { return }
            waiter = nil
            let answer = Array(received.prefix(count))
            received.removeFirst(count)
            promise.succeed(answer)
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
