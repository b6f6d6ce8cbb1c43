import DaemonHarness
import Foundation
import PizzaTesting
import Synchronization
import Testing

@Suite("pizzactl against a live pizzad", .serialized, .offThePool)
struct PizzactlTests {
    @Test("a whole order as an operator types it: products, a delivery due at 19:30, VAT, a discount, pay, refund")
    func wholeOrder() throws {
        // The menu pizzabench's whole order is made from: colas at 2.50 (19%), a garlic bread at 4.50 with a dip at
        // 0.60, a delivery fee of 2.50 (7%).
        let daemon = try LiveDaemon(config: RealisticOrder.menu)
        let created = try daemon.pizzactl([
            "order", "new", "--customer", "Ann", "--delivery", "--phone", "030 1234567", "--address",
            "Hauptstr. 5, 10115 Berlin", "--due", "2026-12-06T19:30:00Z", "--place", "chicken:L",
            "cola-033,qty=2", "garlic-bread,option=extra-dip,note=crispy, please",
        ])
        #expect(created.status == 0, "\(created)")
        #expect(created.stdout.contains("Delivery to Hauptstr. 5, 10115 Berlin, phone 030 1234567"), "\(created)")
        #expect(created.stdout.contains("Garlic bread +extra-dip (note: crispy, please)"), "\(created)")
        // chicken L 12.50 + garlic bread 5.10 + the fee 2.50 = 20.10 at 7%; 2 x cola = 5.00 at 19%.
        #expect(created.stdout.contains("Total: 25.10 EUR"), "\(created)")
        #expect(created.stdout.contains("food 7%"), "\(created)")
        let discounted = try daemon.pizzactl(["order", "discount", "1", "--percent", "10", "--reason", "regular"])
        #expect(discounted.stdout.contains("Discount 4 on order (10%): -2.26 EUR"), "\(discounted)")
        #expect(discounted.stdout.contains("Total: 22.84 EUR"), "\(discounted)")
        let paid = try json(daemon.pizzactl(["--json", "order", "pay", "1", "card", "22.84", "--ref", "T-1"]))
        #expect(paid["balance"] as? Int == 0)
        let payment = try #require((paid["payments"] as? [[String: Any]])?.first?["id"] as? Int)
        let refunded = try daemon.pizzactl(["order", "refund", "1", String(payment), "2.50", "--reason", "cold"])
        #expect(refunded.stdout.contains("Paid: 20.34 EUR, balance: 2.50 EUR"), "\(refunded)")
        let badTender = try daemon.pizzactl(["order", "pay", "1", "cheque", "1"])
        #expect(badTender.status == 2 && badTender.stderr.contains("TENDER must be one of"), "\(badTender)")
        let tooMuch = try daemon.pizzactl(["order", "refund", "1", String(payment), "99", "--reason", "x"])
        #expect(tooMuch.status == 1 && tooMuch.stderr.contains("validation"), "\(tooMuch)")
        let unknown = try daemon.pizzactl(["order", "new", "lemonade-033"])
        #expect(unknown.status == 1 && unknown.stderr.contains("unknown pizza kind 'lemonade-033'"), "\(unknown)")
        #expect(try daemon.pizzactl(["audit", "verify"]).status == 0)
        #expect(try daemon.stop() == 0)
    }

    @Test("an order from creation to delivery, every order command, tables and --json")
    func orderLifecycle() throws {
        let daemon = try LiveDaemon()
        let created = try daemon.pizzactl([
            "order", "new", "--customer", "Ann", "--ref", "till-1", "--note", "ring twice",
            "chicken:L,crust=thin,chili,extra=olives", "cheese:S,qty=2",
        ])
        #expect(created.status == 0, "\(created)")
        #expect(created.stdout.contains("Order 1: open (being filled) for Ann (ref till-1)"))
        #expect(created.stdout.contains("chicken L thin, chili, +olives"))
        #expect(created.stdout.contains("Total: 27.30 EUR"))

        let again = try json(daemon.pizzactl(["--json", "order", "new", "--ref", "till-1", "cheese"]))
        #expect(again["id"] as? Int == 1, "the same ref gives the same order")

        let added = try json(daemon.pizzactl(["--json", "order", "add", "1", "seafood:L,ketchup"]))
        let items = try #require(added["items"] as? [[String: Any]])
        #expect(items.count == 3)
        let seafoodID = try #require(items.last?["id"] as? Int)
        let removed = try json(daemon.pizzactl(["--json", "order", "remove", "1", String(seafoodID)]))
        #expect((removed["items"] as? [Any])?.count == 2)

        #expect(try daemon.pizzactl(["order", "place", "1"]).stdout.contains("Order 1: placed"))
        let advanced = try daemon.pizzactl(["order", "advance", "1", "--from", "placed"])
        #expect(advanced.stdout.contains("being prepared"), "\(advanced)")
        for _ in 0..<4 { try #require(daemon.pizzactl(["order", "advance", "1"]).status == 0) }
        let shown = try daemon.pizzactl(["order", "show", "1"])
        #expect(shown.stdout.contains("Order 1: delivered for Ann"))
        #expect(shown.stdout.contains("shipped → delivered"))
        let byRef = try json(daemon.pizzactl(["--json", "order", "show", "--ref", "till-1"]))
        #expect(byRef["status"] as? String == "delivered")
        #expect((byRef["history"] as? [Any])?.count == 7)

        let second = try json(daemon.pizzactl(["--json", "order", "new", "--place", "cheese"]))
        let secondID = try #require(second["id"] as? Int)
        let cancelled = try daemon.pizzactl(["order", "cancel", String(secondID), "--reason", "customer left"])
        #expect(cancelled.stdout.contains("cancelled"))
        #expect(cancelled.stdout.contains("customer left"))

        let list = try daemon.pizzactl(["order", "list"])
        #expect(list.status == 0)
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ID") == true)
        #expect(lines.count == 3)
        let delivered = try json(daemon.pizzactl(["--json", "order", "list", "--status", "delivered", "--limit", "5"]))
        #expect((delivered["orders"] as? [Any])?.count == 1)
        let since = try json(daemon.pizzactl(["--json", "order", "list", "--since", "2000-01-01"]))
        #expect((since["orders"] as? [Any])?.count == 2)
        // The file, as a user inspects it.
        #expect(try sqlite3(daemon.database, "SELECT status FROM carts ORDER BY id") == "delivered\ncancelled")
    }

    @Test("status, menu, metrics, audit and db commands")
    func inspection() throws {
        let daemon = try LiveDaemon()
        try #require(daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        let status = try daemon.pizzactl(["status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("journal wal, synchronous FULL"))
        #expect(status.stdout.contains("placed"))
        let statusJSON = try json(daemon.pizzactl(["--json", "status"]))
        #expect((statusJSON["orders"] as? [String: Int])?["placed"] == 1)
        // The persistence layer, the audit logger, the request log (order API keys), the metrics collector and the
        // event fan-out (the board's pages and /v1/events).
        #expect(statusJSON["delegates"] as? Int == 5)

        let menu = try daemon.pizzactl(["menu"])
        #expect(menu.stdout.contains("seafood"))
        #expect(menu.stdout.contains("11.00 EUR"))

        let metrics = try daemon.pizzactl(["metrics"])
        #expect(metrics.stdout.contains("pizzad_orders_created_total 1"))

        let audit = try daemon.pizzactl(["audit", "list"])
        #expect(audit.stdout.contains("created"))
        #expect(audit.stdout.contains("uid \(getuid())"))
        let verify = try daemon.pizzactl(["audit", "verify"])
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("audit log ok: 1 entries"))

        let check = try daemon.pizzactl(["db", "check"])
        #expect(check.status == 0)
        #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
        let backupPath = daemon.directory + "/backup.sqlite"
        let backup = try daemon.pizzactl(["db", "backup", backupPath])
        #expect(backup.status == 0, "\(backup)")
        #expect(try sqlite3(backupPath, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite3(backupPath, "SELECT count(*) FROM carts") == "1")
        let beside = try FileManager.default.contentsOfDirectory(atPath: daemon.directory)
            .filter { $0.hasPrefix("backup.sqlite") }
        #expect(beside == ["backup.sqlite"], "only the copy, no .partial, -wal or -shm beside it")
        let again = try daemon.pizzactl(["db", "backup", backupPath])
        #expect(again.status == 1)
        #expect(again.stderr.contains("validation"))
        let nowhere = try daemon.pizzactl(["db", "backup", daemon.directory + "/missing/backup.sqlite"])
        #expect(nowhere.status == 1)
        #expect(nowhere.stderr.contains("validation"), "\(nowhere)")
        #expect(nowhere.stderr.contains("the folder \(daemon.directory)/missing does not exist"), "\(nowhere)")
        let underFile = try daemon.pizzactl(["db", "backup", backupPath + "/inner.sqlite"])
        #expect(underFile.status == 1)
        #expect(underFile.stderr.contains("\(backupPath) is a file, not a folder"), "\(underFile)")
        // Root may write anywhere, so only creating the file finds out; the reason is the system's, not SQLite's.
        let proc = try daemon.pizzactl(["db", "backup", "/proc/pizzad-backup.sqlite"])
        #expect(proc.status == 1)
        #expect(proc.stderr.contains("/proc"), "\(proc)")
        #expect(!proc.stderr.contains("storage unavailable"), "\(proc)")
        for name in ["", daemon.directory + "/"] {
            #expect(try daemon.pizzactl(["db", "backup", name]).status == 2, "db backup '\(name)' is a usage error")
        }
        #expect(try daemon.pizzactl(["status"]).status == 0)
    }

    @Test("an edit behind the daemon's back makes audit verify fail with exit 1")
    func tampering() throws {
        let daemon = try LiveDaemon()
        try #require(daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        _ = try sqlite3(daemon.database, "UPDATE carts SET status = 'delivered' WHERE id = 1")
        let verify = try daemon.pizzactl(["audit", "verify"])
        #expect(verify.status == 1)
        #expect(verify.stderr.contains("order 1 is delivered in carts but its last audit entry says placed"))
    }

    @Test("watch renders the live event stream")
    func watch() async throws {
        let daemon = try LiveDaemon()
        let live = try WatchingPizzactl(["--socket", daemon.socket, "watch"])
        // Subscribed once it says so: the changes below are made after that, not after a guess at the time.
        let header = try await live.output(containing: ["Watching orders"])
        try #require(header.contains("Watching orders"), "\(header)")
        try #require(daemon.pizzactl(["order", "new", "--customer", "Zoe", "--place", "cheese"]).status == 0)
        try #require(daemon.pizzactl(["order", "advance", "1"]).status == 0)
        let output = try await live.output(containing: ["#2  order 1 advanced"])
        live.stop()
        #expect(output.contains("#1  order 1 created → placed  Zoe, 1 pizza, 9.00 EUR"), "\(output)")
        #expect(output.contains("#2  order 1 advanced → being prepared"), "\(output)")

        // Resuming with --after replays from the audit log.
        let replay = try WatchingPizzactl(["--socket", daemon.socket, "--json", "watch", "--after", "1"])
        let replayed = try await replay.output(containing: [#""seq":2"#])
        replay.stop()
        #expect(replayed.contains(#""seq":2"#), "\(replayed)")
        #expect(!replayed.contains(#""seq":1"#))
    }

    @Test("the global options may come before the command, inside it or after it")
    func globalOptionsAnywhere() throws {
        let daemon = try LiveDaemon()
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        let socket = daemon.socket
        let placements = [
            ["--socket", socket, "--json", "order", "show", "1"],
            ["order", "--socket", socket, "show", "--json", "1"],
            ["order", "show", "1", "--json", "--socket=\(socket)"],
        ]
        let outputs = try placements.map { try json(run(Binaries.pizzactl, $0)) }
        #expect(outputs.allSatisfy { ($0["id"] as? Int) == 1 && ($0["status"] as? String) == "open" })
        let late = try run(Binaries.pizzactl, ["order", "show", "1", "--socket", socket, "--timeout", "0"])
        #expect(late.status == 2, "\(late)")
        #expect(late.stderr.contains("--timeout must be between 0 and 3600 seconds"))
    }

    @Test("exit codes: 2 for usage, 3 when no daemon answers, 1 when the daemon refuses")
    func exitCodes() throws {
        let daemon = try LiveDaemon()
        let usage = try daemon.pizzactl(["order", "frobnicate"])
        #expect(usage.status == 2)
        let badPizza = try daemon.pizzactl(["order", "new", "cheese:L,glitter"])
        #expect(badPizza.status == 2)
        #expect(badPizza.stderr.contains("unknown option 'glitter'"))
        let badStatus = try daemon.pizzactl(["order", "list", "--status", "eaten"])
        #expect(badStatus.status == 2)
        let refused = try daemon.pizzactl(["order", "advance", "42"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not_found"))
        let missing = try run(Binaries.pizzactl, ["--socket", daemon.directory + "/nowhere.sock", "status"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains(daemon.directory + "/nowhere.sock"))
        #expect(missing.stderr.contains("systemctl start pizzad"))
        #expect(missing.stdout.isEmpty)
    }

    @Test("shell completion scripts for bash, zsh and fish", arguments: ["bash", "zsh", "fish"])
    func completions(_ shell: String) throws {
        let script = try run(Binaries.pizzactl, ["--generate-completion-script", shell])
        #expect(script.status == 0)
        #expect(script.stdout.contains("pizzactl"))
        #expect(script.stdout.contains("advance"))
    }
}

/// `pizzactl` running (a `watch`), its output gathered as it comes: a test waits for the text it expects, not for a
/// fixed time (on a loaded machine, starting a debug pizzactl and replaying took longer than the 700 ms once given).
final class WatchingPizzactl {
    private let process = Process()
    /// What pizzactl wrote so far, read as it comes on a thread of its own (``OutputPipe``).
    private let pipe: OutputPipe

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Binaries.pizzactl)
        process.arguments = arguments
        pipe = try OutputPipe()
        try pipe.run(process, errors: false)
    }

    deinit { stop() }

    /// The output so far once it contains every one of `texts`, or when `timeout` has passed or the output ended (all
    /// of it read: an ended output is never cut short, and `isRunning` is not polled; see `ChildProcess`).
    func output(containing texts: [String], timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (data, ended) = pipe.output
            let text = String(decoding: data, as: UTF8.self)
            if texts.allSatisfy(text.contains) || ended || ContinuousClock.now >= deadline { return text }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// Closing the day and "86" as an operator types them (CONTRACT sections 17-18).
@Suite("pizzactl: the menu's availability and closing the day", .serialized, .offThePool)
struct ClosingTheDayTests {
    static let config = """
        menu:
          taxes: {food: 700, drinks: 1900}
          pizzaTax: food
          products:
            cola-033: {name: Cola 0.33 l, category: drinks, price: 250, tax: drinks}
        """

    @Test("86 an item (refused, listed, kept over a restart), then X, Z, the same ref, the table, CSV, verify, an edit")
    func closingTheDay() throws {
        let folder = try TemporaryFolder("pizzad-z")
        var daemon = try LiveDaemon(config: Self.config, directory: folder.path)
        let off = try daemon.pizzactl(["menu", "off", "cola-033"])
        #expect(off.status == 0 && off.stdout.contains("cola-033 is off the menu (86)"), "\(off)")
        let refused = try daemon.pizzactl(["order", "new", "chicken", "cola-033"])
        #expect(refused.status == 1 && refused.stderr.contains("cola-033 is not available now"), "\(refused)")
        let unknown = try daemon.pizzactl(["menu", "off", "lemonade"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no kind, product or extra"), "\(unknown)")
        #expect(try daemon.pizzactl(["menu"]).stdout.contains("Off the menu now (86): cola-033"))
        // Kept over a restart, then put back.
        #expect(try daemon.stop() == 0)
        daemon = try LiveDaemon(config: Self.config, directory: folder.path)
        let menu = try json(daemon.pizzactl(["--json", "menu"]))
        #expect(menu["unavailable"] as? [String] == ["cola-033"], "\(menu)")
        #expect(try daemon.pizzactl(["menu", "on", "cola-033"]).stdout.contains("cola-033 is back on the menu"))

        // A day: three orders paid cash or card; one cancelled after its payment, which is refunded.
        for (items, tender) in [(["chicken", "cola-033"], "cash"), (["cheese:L"], "card"), (["seafood"], "cash")] {
            let order = try json(daemon.pizzactl(["--json", "order", "new", "--place"] + items))
            let id = try #require(order["id"] as? Int)
            let total = try #require(order["total"] as? Int)
            let amount = "\(total / 100).\(String(format: "%02d", total % 100))"
            #expect(try daemon.pizzactl(["order", "pay", String(id), tender, amount]).status == 0)
        }
        let paid = try json(daemon.pizzactl(["--json", "order", "show", "3"]))
        let payment = try #require((paid["payments"] as? [[String: Any]])?.first)
        #expect(try daemon.pizzactl(["order", "cancel", "3", "--reason", "left"]).status == 0)
        let refund = [
            "order", "refund", "3", String(payment["id"] as! Int), "\((payment["amount"] as! Int) / 100).00",
            "--reason", "cancelled",
        ]
        #expect(try daemon.pizzactl(refund).status == 0)

        let x = try daemon.pizzactl(["report", "x"])
        #expect(x.status == 0 && x.stdout.contains("X report (so far; the next Z is number 1)"), "\(x)")
        #expect(x.stdout.contains("Placed: 3") && x.stdout.contains("Cancelled: 1"), "\(x)")
        let z = try json(daemon.pizzactl(["--json", "report", "z", "--ref", "day-1"]))
        #expect(z["number"] as? Int == 1)
        let again = try json(daemon.pizzactl(["--json", "report", "z", "--ref", "day-1"]))
        #expect(again["number"] as? Int == 1 && again["lastSeq"] as? Int == z["lastSeq"] as? Int)
        let list = try daemon.pizzactl(["report", "list"])
        #expect(list.stdout.split(separator: "\n").count == 2, "one header and one report: \(list)")
        let shown = try daemon.pizzactl(["report", "show", "1"])
        #expect(shown.stdout.contains("Z report 1") && shown.stdout.contains("drinks"), "\(shown)")
        #expect(shown.stdout.contains("cash") && shown.stdout.contains("card"), "\(shown)")

        // The CSV: a line per order and rate; per rate, its lines add up to the report's gross.
        let csv = try daemon.pizzactl(["report", "show", "1", "--csv"])
        #expect(csv.status == 0, "\(csv)")
        let rows = csv.stdout.split(separator: "\r\n").map { $0.split(separator: ",").map(String.init) }
        #expect(
            rows.first == ["report", "closed_at", "order", "channel", "rate", "vat_percent", "gross", "net", "vat"])
        var gross: [String: Int] = [:]
        for row in rows.dropFirst() { gross[row[4], default: 0] += Int((Double(row[6])! * 100).rounded()) }
        let taxes = try #require(z["taxes"] as? [[String: Any]])
        for tax in taxes { #expect(gross[tax["rate"] as! String] == tax["gross"] as? Int, "\(csv.stdout)") }
        #expect(rows.dropFirst().allSatisfy { $0[3] == "socket:\(NSUserName())" || $0[3].hasPrefix("socket:") })

        let verified = try daemon.pizzactl(["report", "verify", "1"])
        #expect(verified.status == 0 && verified.stdout.contains("Z report 1 ok"), "\(verified)")
        _ = try sqlite3(
            daemon.database, "UPDATE payments SET amount = amount + 100 WHERE id = \(payment["id"] as! Int)")
        let broken = try daemon.pizzactl(["report", "verify", "1"])
        #expect(
            broken.status == 1 && broken.stderr.contains("payment \(payment["id"] as! Int) of order 3"), "\(broken)")
        let audit = try daemon.pizzactl(["audit", "verify"])
        #expect(audit.status == 1 && audit.stderr.contains("payment \(payment["id"] as! Int)"), "\(audit)")
        #expect(try daemon.stop() == 0)
    }
}
