import ArgumentParser
import FoundationEssentials
import Glibc
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaWire

#if canImport(Glibc)
    import Glibc
#endif

/// `pizzactl board`: the kitchen's screen in a terminal. Tickets in columns by status, timed, yellow and red past
/// the configured marks; bump a ticket to its next step with one key (`order.advance` with `from` the shown
/// status, so two screens never double-advance: the second sees `conflict`), cancel with a reason, recall the
/// last tickets bumped out. Follows `events.watch` and survives a daemon restart (it resumes after the last event).
struct Board: AsyncParsableCommand, PizzactlCommand {
    static let configuration = CommandConfiguration(
        commandName: "board",
        abstract: "The kitchen's board, full screen: tickets by status, bump with Enter. q quits.",
        discussion: GlobalOptions.help)

    @ParentCommand var pizzactl: Pizzactl

    @MainActor
    func run() async throws {
        guard Terminal.isInteractive else {
            Output.error("board needs a terminal (it draws a full screen); for a line per change use pizzactl watch")
            throw ExitCode(2)
        }
        let model = BoardModel()
        let terminal = Terminal()
        let global = self.global
        let draw: @MainActor @Sendable () -> Void = {
            let size = terminal.size
            terminal.write(
                BoardScreen.frame(
                    model, rows: size.rows, columns: size.columns, now: Date().timeIntervalSince1970))
        }
        terminal.enter(onResize: { Task { @MainActor in draw() } }, onStop: { Glibc.exit(0) })
        defer { terminal.leave() }
        let follower = Task { @MainActor in
            await Self.follow(global: global, model: model, redraw: draw)
        }
        let ticker = Task { @MainActor in
            while !Task.isCancelled {
                draw()
                try? await Task.sleep(for: .seconds(1))
            }
        }
        // The printers' status is no event: asked every 5 seconds, so paper out shows on the board.
        let printers = Task { @MainActor in
            while !Task.isCancelled {
                if let outbox = await Self.outbox(global: global) { model.apply(outbox: outbox) }
                try? await Task.sleep(for: .seconds(5))
            }
        }
        defer {
            follower.cancel()
            ticker.cancel()
            printers.cancel()
        }
        for await key in terminal.keys() {
            if await handle(key, model: model, global: global, redraw: draw) { break }
            draw()
        }
    }

    /// `outbox.list`, or nil when the daemon cannot be reached.
    nonisolated static func outbox(global: GlobalOptions) async -> OutboxListAnswer? {
        try? await ControlClient.withConnection(socket: global.socketPath, timeout: .seconds(5)) { client in
            try OutboxListAnswer(json: try await client.call(.outboxList))
        }
    }

    /// Follows the daemon: the snapshot, then every event; after a restart, the events after the last one seen.
    nonisolated static func follow(
        global: GlobalOptions, model: BoardModel, redraw: @escaping @MainActor @Sendable () -> Void
    ) async {
        var first = true
        while !Task.isCancelled {
            do {
                try await ControlClient.withConnection(socket: global.socketPath, timeout: .seconds(5)) { client in
                    if first {
                        let snapshot = try BoardSnapshotAnswer(json: try await client.call(.boardSnapshot))
                        await MainActor.run { model.load(snapshot: snapshot) }
                        first = false
                    }
                    let after = await MainActor.run { model.lastSeq }
                    _ = try await client.call(.watch, [("after", .int(after))])
                    await MainActor.run {
                        model.connected = true
                        model.status = "following pizzad at \(global.socketPath)"
                        redraw()
                    }
                    while let message = try await client.nextNotification() {
                        let notification = try WatchNotification(message: message)
                        if case .dropped = notification { break }
                        await MainActor.run {
                            switch notification {
                            case .event(let event): model.apply(event: event)
                            case .shop(let event): model.apply(shop: event)
                            case .dropped: break
                            }
                            redraw()
                        }
                    }
                }
            } catch {
                let wasFirst = first
                await MainActor.run { if wasFirst { model.status = "cannot reach pizzad: \(error)" } }
            }
            if Task.isCancelled { return }
            let wasFirst = first
            await MainActor.run {
                model.connected = false
                if !wasFirst { model.status = "pizzad went away (restarting?): reconnecting…" }
                redraw()
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Reacts to a key; true to quit.
    @MainActor
    func handle(
        _ key: Terminal.Key, model: BoardModel, global: GlobalOptions, redraw: @escaping @MainActor @Sendable () -> Void
    )
        async -> Bool
    {
        if var cancelling = model.cancelling {
            switch key {
            case .escape:
                model.cancelling = nil
                model.status = "not cancelled"
            case .enter:
                model.cancelling = nil
                model.status = await Self.send(
                    OrderOperation.cancel, [("id", .int(cancelling.id)), ("reason", .string(cancelling.reason))],
                    done: "cancelled #\(cancelling.id)", global: global)
            case .backspace:
                if !cancelling.reason.isEmpty { cancelling.reason.removeLast() }
                model.cancelling = cancelling
            case .character(let character):
                cancelling.reason.append(character)
                model.cancelling = cancelling
            default: break
            }
            return false
        }
        switch key {
        case .character("q"), .character("Q"): return true
        case .up, .down, .left, .right: model.move(key)
        case .character("h"): model.move(.left)
        case .character("l"): model.move(.right)
        case .character("k"): model.move(.up)
        case .character("j"): model.move(.down)
        case .character("r"): model.showingRecall.toggle()
        case .enter, .character("b"), .character(" "):
            guard let order = model.selected else { return false }
            let (id, status) = (order.id, order.status.rawValue)
            model.status = "bumping #\(id)…"
            redraw()
            model.status = await Self.send(
                OrderOperation.advance, [("id", .int(id)), ("from", .string(status))],
                done: "bumped #\(id) from \(status)",
                global: global)
        case .character("c"):
            guard let id = model.selected?.id else { return false }
            model.cancelling = (id, "")
        default: break
        }
        return false
    }

    /// One change on a connection of its own; what to say in the status line.
    nonisolated static func send(
        _ operation: OrderOperation, _ params: [(String, JSONValue)], done: String, global: GlobalOptions
    )
        async -> String
    {
        do {
            _ = try await global.withDaemon { try await $0.call(operation.rawValue, params) }
            return done
        } catch let error as RPCError {
            switch error.code {
            case .conflict: return "conflict: another screen moved it first; nothing changed (\(error.message))"
            case .permissionDenied:
                return "permission denied: bumping and cancelling need an operator (\(error.message))"
            default: return "\(error.code.name): \(error.message)"
            }
        } catch {
            return "not sent: \(error)"
        }
    }
}
