import DaemonHarness
import Foundation
import PizzaTesting
import Testing

private let tmuxMissing: String? = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
        print("pizzactl board tests skipped: tmux is missing (apt install tmux)")
        return "tmux is missing"
    }
    return nil
}()

/// A real terminal: a tmux server of the test's own, one session per board.
private final class Tmux {
    /// The server's socket, in the test's own folder (not in /tmp/tmux-UID, which other programs share).
    let socket: String
    /// Why the last capture failed, for the failure message.
    private(set) var lastFailure = ""

    init(folder: String) { socket = folder + "/tmux.sock" }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> CommandResult { try run("/usr/bin/tmux", ["-S", socket] + arguments) }

    func start(_ name: String, _ command: [String], columns: Int = 160, rows: Int = 40) throws {
        let line = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let started = try tmux(["new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", line])
        guard started.status == 0 else { throw HarnessError("tmux new-session: \(started)") }
        // A board that exits leaves its last screen (and "Pane is dead") to read, instead of an empty one.
        try tmux(["set-option", "-t", name, "remain-on-exit", "on"])
    }

    func screen(_ name: String) -> String {
        do {
            let captured = try tmux(["capture-pane", "-p", "-t", name])
            if captured.status != 0 { lastFailure = "capture-pane: \(captured.status) \(captured.stderr)" }
            return captured.stdout
        } catch {
            lastFailure = "capture-pane: \(error)"
            return ""
        }
    }

    /// Waits until the screen of `name` satisfies `condition`; returns how long it took.
    @discardableResult
    func wait(_ name: String, within seconds: Double, _ what: String, _ condition: (String) -> Bool) async throws
        -> Double
    {
        let watch = Stopwatch()
        let limit = TimeLimit(seconds: seconds)
        while limit.remains {
            if condition(screen(name)) { return watch.seconds }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("\(what) did not show within \(seconds) s on \(name) (\(lastFailure)):\n\(screen(name))")
    }

    func keys(_ name: String, _ keys: String...) throws { try tmux(["send-keys", "-t", name] + keys) }

    /// Ends the tmux server and the boards in it; needs the socket, so before the folder goes.
    func killServer() { _ = try? run("/usr/bin/tmux", ["-S", socket, "kill-server"]) }

    deinit { killServer() }
}

@Suite("pizzactl board in a real terminal (tmux)", .serialized, .enabled(if: tmuxMissing == nil), .offThePool)
struct BoardTerminalTests {
    static let config = "socket:\n  mode: \"0666\"\naccess:\n  readers: [nobody]\n"

    @Test(
        "a new order shows within 1 s, Enter bumps it, two boards bumping one ticket advance it once and one shows the conflict, a reader's bump is refused, a daemon restart is survived, a resize re-lays it out, q quits"
    )
    func kitchenBoard() async throws {
        let directoryFolder = try TemporaryFolder("pizzad-tui")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        var daemon = try LiveDaemon(config: Self.config, directory: directory)
        let terminal = Tmux(folder: directory)
        // Declared after the folder's removal, so it runs first: kill-server needs the socket in the folder.
        defer { terminal.killServer() }
        let board = [Binaries.pizzactl, "--socket", daemon.socket, "board"]
        try terminal.start("a", board)
        try await terminal.wait("a", within: 120, "the board") { $0.contains("live") && $0.contains("PLACED (0)") }

        #expect(
            try daemon.pizzactl(["order", "new", "--customer", "Ada", "--place", "chicken:L,extra=olives,qty=2"]).status
                == 0)
        let shown = try await terminal.wait("a", within: 1, "the new ticket") {
            $0.contains("#1 Ada") && $0.contains("2× chicken L +olives")
        }
        print("pizzactl board: a new ticket showed in \(Int(shown * 1000)) ms")
        try terminal.keys("a", "Enter")
        try await terminal.wait("a", within: 120, "the bump") {
            $0.contains("PREPARING (1)") && $0.contains("PLACED (0)")
        }
        #expect(try sqlite3(daemon.database, "SELECT status FROM carts WHERE id = 1") == "preparing")

        // Two screens bump the same ticket at once: it moves one step, and the slower screen says so.
        try terminal.start("b", board)
        try await terminal.wait("b", within: 120, "the second board") { $0.contains("PREPARING (1)") }
        for column in ["a", "b"] { try terminal.keys(column, "Right") }
        try terminal.tmux(["send-keys", "-t", "a", "Enter", ";", "send-keys", "-t", "b", "Enter"])
        try await terminal.wait("b", within: 120, "both boards after the bump") { $0.contains("BAKING (1)") }
        let both = TimeLimit(seconds: 120)
        var screens = ""
        var bumpedAt: Stopwatch?
        while both.remains {
            screens = terminal.screen("a") + terminal.screen("b")
            if screens.contains("conflict: another screen") && screens.contains("bumped #1 from preparing") { break }
            if bumpedAt == nil, screens.contains("bumped #1 from preparing") { bumpedAt = Stopwatch() }
            if let bumpedAt, bumpedAt.seconds > 10 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try sqlite3(daemon.database, "SELECT status FROM carts WHERE id = 1") == "baking")
        #expect(screens.contains("bumped #1 from preparing"), "\(screens)")
        // The slower screen asked too, and was refused, unless the faster one's bump reached it first (its column
        // then empty, its Enter asks nothing: seen once in a loaded run). pizzad counts each refusal by its error.
        let refusals = try daemon.pizzactl(["metrics"]).stdout.split(separator: "\n").filter {
            $0.hasPrefix("pizzad_changes_failed_total{") && $0.contains(#"error="conflict""#)
        }
        if refusals.contains(where: { !$0.hasSuffix(" 0") }) {
            #expect(screens.contains("conflict: another screen moved it first"), "\(screens)\n\(refusals)")
        } else {
            print("the second screen's Enter came after the first screen's bump had reached it: nothing was refused")
        }

        // A reader sees the board but may not bump.
        try terminal.start(
            "reader", ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + board)
        try await terminal.wait("reader", within: 120, "the reader's board") { $0.contains("BAKING (1)") }
        try terminal.keys("reader", "Right", "Right", "Enter")
        try await terminal.wait("reader", within: 120, "the refusal") { $0.contains("permission denied") }
        #expect(try sqlite3(daemon.database, "SELECT status FROM carts WHERE id = 1") == "baking")

        // The daemon restarts: the board says so, comes back by itself, and goes on from where it was.
        #expect(try daemon.stop() == 0)
        try await terminal.wait("a", within: 120, "the lost daemon") { $0.contains("reconnecting") }
        daemon = try LiveDaemon(config: Self.config, directory: directory)
        try await terminal.wait("a", within: 120, "the reconnection") {
            $0.contains("live") && $0.contains("following")
        }
        #expect(try daemon.pizzactl(["order", "new", "--customer", "Bo", "--place", "seafood"]).status == 0)
        try await terminal.wait("a", within: 120, "a ticket after the restart") { $0.contains("#2 Bo") }
        #expect(terminal.screen("a").contains("BAKING (1)"), "the baking ticket was lost: \(terminal.screen("a"))")

        // Cancel with a reason, then recall it.
        try terminal.keys("a", "Left")
        try terminal.keys("a", "c")
        try await terminal.wait("a", within: 120, "the reason prompt") { $0.contains("cancel #2: reason?") }
        try terminal.tmux(["send-keys", "-t", "a", "-l", "oven broke"])
        try terminal.keys("a", "Enter")
        try await terminal.wait("a", within: 120, "the cancellation") {
            $0.contains("cancelled #2") && $0.contains("PLACED (0)")
        }
        #expect(
            try sqlite3(
                daemon.database,
                "SELECT status || '|' || (SELECT reason FROM status_history WHERE cart_id = 2 ORDER BY id DESC LIMIT 1) FROM carts WHERE id = 2"
            )
                == "cancelled|oven broke")
        try terminal.keys("a", "r")
        try await terminal.wait("a", within: 120, "the recall") {
            $0.contains("RECALL") && $0.contains("#2 Bo") && $0.contains("cancelled")
        }
        try terminal.keys("a", "r")
        try await terminal.wait("a", within: 120, "the board again") { $0.contains("BAKING (1)") }
        #expect(try daemon.pizzactl(["order", "new", "--customer", "Cy", "--place", "cheese"]).status == 0)
        try await terminal.wait("a", within: 120, "a third ticket") { $0.contains("#3 Cy") }

        // Narrow: a list by status; wide again: columns.
        try terminal.tmux(["resize-window", "-t", "a", "-x", "70", "-y", "40"])
        try await terminal.wait("a", within: 120, "the narrow layout") { screen in
            let lines = screen.split(separator: "\n")
            return lines.contains { $0.hasPrefix("PLACED (1)") } && lines.contains { $0.hasPrefix("BAKING (1)") }
                && !lines.contains { $0.contains("PLACED") && $0.contains("PREPARING") }
        }
        try terminal.tmux(["resize-window", "-t", "a", "-x", "160", "-y", "40"])
        try await terminal.wait("a", within: 120, "the wide layout") { screen in
            screen.split(separator: "\n").contains { $0.contains("PLACED (1)") && $0.contains("BAKING (1)") }
        }

        try terminal.keys("a", "q")
        func exited() throws -> Bool {
            try terminal.tmux(["display-message", "-p", "-t", "a", "#{pane_dead}"]).stdout.hasPrefix("1")
        }
        let gone = TimeLimit(seconds: 60)
        while gone.remains, try !exited() { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try exited(), "q did not quit")
        #expect(try daemon.stop() == 0)
    }

    @Test("not a terminal: pizzactl board says so and exits 2")
    func notATerminal() throws {
        let daemon = try LiveDaemon()
        let result = try run(Binaries.pizzactl, ["--socket", daemon.socket, "board"])
        #expect(result.status == 2 && result.stderr.contains("needs a terminal"), "\(result)")
        #expect(try daemon.stop() == 0)
    }
}
