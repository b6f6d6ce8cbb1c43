import DaemonHarness
import Foundation
import PizzaCore
import PizzaTesting
import Testing

/// What leaves the shop (CONTRACT section 16), against real receivers: a TCP listener speaking ESC/POS as the
/// kitchen's printer, and a webhook endpoint that verifies every delivery with PyPI's `standardwebhooks`.
@Suite("Printers and webhooks", .serialized, .offThePool)
struct OutboxTests {
    /// `printers:` and `webhooks:` YAML for these receivers, with the retry schedule shrunk to milliseconds.
    static func config(
        printers: [(String, KitchenPrinter)] = [], webhooks: [(String, WebhookReceiver)] = [], extra: String = "",
        printerLines: [String: String] = [:]
    ) -> String {
        // The retry schedule and the delivery timeout are what these tests are about: the schedule scaled to a
        // thousandth (seconds, not days) and the timeout 2 s (not 10) so that they run in seconds.
        var text = "outbox:\n  retryScale: 0.001\n  webhookTimeoutSeconds: 2\n"
        if !printers.isEmpty {
            text += "printers:\n"
            for (name, printer) in printers {
                text += "  - name: \(name)\n    address: 127.0.0.1:\(printer.port)\n    columns: 32\n"
                text += printerLines[name] ?? ""
            }
        }
        if !webhooks.isEmpty {
            text += "webhooks:\n"
            for (name, receiver) in webhooks {
                text += "  - name: \(name)\n    url: \(receiver.url)\n    secretFile: \(receiver.secretFile)\n"
                text += "    allowPrivate: true\n"
            }
        }
        return text + extra
    }

    /// Waits until `condition` holds, checking every 50 ms; fails with `what` after `seconds` (generous: CI runs the
    /// suites side by side on two cores; how fast deliveries are is pizzabench's to say, not a test's).
    static func eventually(
        _ what: @autoclosure () -> String, seconds: Double = 90, _ condition: () throws -> Bool
    ) async throws {
        let limit = TimeLimit(seconds: seconds)
        while limit.remains {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("not within \(seconds) s: \(what())")
        throw HarnessError("not within \(seconds) s")
    }

    /// `pizzactl --json outbox` as objects by name.
    static func outbox(_ daemon: some DaemonUnderTest) throws -> [String: [String: Any]] {
        let listed = try daemon.pizzactl(["--json", "outbox"])
        guard listed.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any],
            let destinations = object["destinations"] as? [[String: Any]]
        else { throw HarnessError("pizzactl outbox: \(listed)") }
        return Dictionary(uniqueKeysWithValues: destinations.map { ($0["name"] as? String ?? "?", $0) })
    }

    @Test(
        "a placed order prints a kitchen ticket and a cancelled one a cancellation; the webhook hears every change",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func ticketsAndWebhook() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let printer = try await KitchenPrinter()
        defer { Task { await printer.stop() } }
        let receiver = try WebhookReceiver(in: folder.path)
        let daemon = try LiveDaemon(
            config: Self.config(printers: [("kitchen", printer)], webhooks: [("shop", receiver)]),
            directory: folder.path)
        let first = try daemon.pizzactl([
            "order", "new", "--customer", "Zoë Łukasz", "--note", "ring twice", "--place", "chicken:L,crust=thin,chili",
            "cheese:M,extra=olives,qty=2",
        ])
        #expect(first.status == 0, "\(first)")
        let second = try daemon.pizzactl(["order", "new", "--place", "seafood"])
        #expect(second.status == 0, "\(second)")
        #expect(try daemon.pizzactl(["order", "cancel", "2", "--reason", "customer called"]).status == 0)
        try await Self.eventually("two tickets and a cancellation: \(printer.tickets)") { printer.tickets.count == 3 }
        let tickets = printer.tickets
        #expect(tickets[0].contains("#1"))
        #expect(tickets[0].contains("Zoë Lukasz"), "code page 858 has ë, and Ł reads as L: \(tickets[0])")
        #expect(tickets[0].contains("1 x chicken L") && tickets[0].contains("thin, chili"))
        #expect(tickets[0].contains("2 x cheese M") && tickets[0].contains("+olives"))
        #expect(tickets[0].contains("Note: ring twice"))
        #expect(!tickets[0].contains("REPRINT"))
        #expect(tickets[1].contains("#2") && tickets[1].contains("1 x seafood"))
        #expect(tickets[2].contains("CANCELLED") && tickets[2].contains("#2") && tickets[2].contains("customer called"))

        // Each change once, in commit order, verified: two orders created placed, one cancelled.
        try await Self.eventually("three deliveries: \((try? receiver.records()) ?? [])") {
            try receiver.accepted().count == 3
        }
        let accepted = try receiver.accepted()
        #expect(try receiver.records().allSatisfy(\.verified))
        #expect(accepted.map(\.kind) == ["created", "created", "cancelled"])
        #expect(accepted.map(\.status) == ["placed", "placed", "cancelled"])
        #expect(accepted.compactMap(\.seq) == accepted.compactMap(\.seq).sorted())
        #expect(Set(accepted.compactMap(\.id)).count == 3)
        // The printer's last ticket written, the kitchen's destination goes back to idle.
        try await Self.eventually("the kitchen idle: \((try? Self.outbox(daemon)) ?? [:])") {
            try Self.outbox(daemon)["kitchen"]?["state"] as? String == "idle"
        }
        let states = try Self.outbox(daemon)
        #expect(states["kitchen"]?["printer"] as? String == "online")
        #expect(states["shop"]?["waiting"] as? Int == 0)

        let preview = try daemon.pizzactl(["order", "print", "1", "--preview"])
        #expect(
            preview.status == 0 && preview.stdout.contains("REPRINT") && preview.stdout.contains("#1"), "\(preview)")
        #expect(printer.tickets.count == 3, "a preview prints nothing")
        let reprint = try daemon.pizzactl(["order", "print", "1", "--printer", "kitchen"])
        #expect(reprint.status == 0, "\(reprint)")
        #expect(printer.tickets.count == 4 && printer.tickets[3].contains("REPRINT"))
        #expect(try daemon.pizzactl(["order", "print", "1", "--printer", "bar"]).status == 1)
        _ = try daemon.stop()
    }

    @Test(
        "a printer with reports: true prints the X asked for and each Z; webhooks hear of an 86 and a Z, order null",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func reportsAndShopEvents() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let kitchen = try await KitchenPrinter()
        let till = try await KitchenPrinter()
        defer {
            Task {
                await kitchen.stop()
                await till.stop()
            }
        }
        let receiver = try WebhookReceiver(in: folder.path)
        let config = Self.config(
            printers: [("kitchen", kitchen), ("till", till)], webhooks: [("shop", receiver)],
            printerLines: ["till": "    events: []\n    reports: true\n"])
        let daemon = try LiveDaemon(config: config, directory: folder.path)
        #expect(try daemon.pizzactl(["menu", "off", "olives"]).status == 0)
        #expect(try daemon.pizzactl(["order", "new", "--place", "cheese:L"]).status == 0)
        #expect(try daemon.pizzactl(["order", "pay", "1", "cash", "11.00"]).status == 0)
        let x = try daemon.pizzactl(["report", "x", "--print"])
        #expect(x.status == 0, "\(x)")
        #expect(try daemon.pizzactl(["report", "z"]).status == 0)
        try await Self.eventually("the X and the Z on the till's printer: \(till.tickets)") { till.tickets.count == 2 }
        #expect(till.tickets[0].contains("X REPORT") && till.tickets[1].contains("Z REPORT"), "\(till.tickets)")
        #expect(till.tickets[1].contains("No. 1") && till.tickets[1].contains("cash in"), "\(till.tickets[1])")
        try await Self.eventually("the kitchen's one ticket: \(kitchen.tickets)") { kitchen.tickets.count == 1 }
        #expect(!kitchen.tickets[0].contains("REPORT"))
        try await Self.eventually("four deliveries: \((try? receiver.records()) ?? [])") {
            try receiver.accepted().count == 4
        }
        let accepted = try receiver.accepted()
        #expect(accepted.map(\.kind) == ["availability_changed", "created", "paid", "z_report"])
        #expect(accepted.first?.kind == "availability_changed" && accepted.first?.item == "olives")
        #expect(accepted.first?.available == false && accepted.first?.order == nil)
        #expect(accepted.last?.kind == "z_report" && accepted.last?.report == 1 && accepted.last?.order == nil)
        #expect(try receiver.records().allSatisfy(\.verified))
        _ = try daemon.stop()
    }

    @Test("a printer off for a while gets every waiting ticket once, in order, when it is back; paper out is shown")
    func printerOffThenBack() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let printer = try await KitchenPrinter()
        defer { Task { await printer.stop() } }
        let boardPort = try freeLoopbackPort()
        let daemon = try LiveDaemon(
            config: Self.config(printers: [("kitchen", printer)], extra: "board:\n  listen: 127.0.0.1:\(boardPort)\n"),
            directory: folder.path)
        try await printer.switchOff()
        for index in 1...4 {
            #expect(
                try daemon.pizzactl(["order", "new", "--customer", "guest \(index)", "--place", "cheese"]).status == 0)
        }
        try await Self.eventually("the printer failing with 4 waiting") {
            let kitchen = try Self.outbox(daemon)["kitchen"]
            return kitchen?["state"] as? String == "failing" && kitchen?["waiting"] as? Int == 4
                && kitchen?["printer"] as? String == "unreachable"
        }
        let listed = try daemon.pizzactl(["outbox"])
        #expect(listed.stdout.contains("kitchen") && listed.stdout.contains("failing"), "\(listed)")
        try await printer.switchOn()
        try await Self.eventually("four tickets") { printer.tickets.count == 4 }
        let guests = printer.tickets.map { $0.split(separator: "\n").first { $0.hasPrefix("guest") }.map(String.init) }
        #expect(guests == (1...4).map { "guest \($0)" }, "\(printer.tickets)")
        #expect(!printer.tickets.contains { $0.contains("REPRINT") }, "nothing reached the printer while it was off")

        printer.set(.paperOut)
        #expect(try daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        try await Self.eventually("paper out in pizzactl outbox") {
            try Self.outbox(daemon)["kitchen"]?["printer"] as? String == "paper_out"
        }
        let metrics = try daemon.pizzactl(["metrics"]).stdout
        #expect(metrics.contains(#"pizzad_printer_status{printer="kitchen",status="paper_out"} 1"#), "\(metrics)")
        // The board's page opens its stream with a snapshot that names each printer's status.
        let board = try run("curl", ["-sN", "--max-time", "2", "http://127.0.0.1:\(boardPort)/board/events"])
        #expect(board.stdout.contains(#""printers":[{"name":"kitchen","status":"paper_out"}]"#), "\(board)")
        printer.set(.ready)
        try await Self.eventually("the fifth ticket once the paper is back") { printer.tickets.count == 5 }
        #expect(printer.tickets.count == 5)
        _ = try daemon.stop()
    }

    @Test(
        "a receiver that answers 500, times out, then 429 with Retry-After gets each event once, in order",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func webhookRetries() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let receiver = try WebhookReceiver(in: folder.path, script: ["500", "timeout", "429:1", "200"])
        let daemon = try LiveDaemon(config: Self.config(webhooks: [("shop", receiver)]), directory: folder.path)
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        #expect(try daemon.pizzactl(["order", "place", "1"]).status == 0)
        #expect(try daemon.pizzactl(["order", "advance", "1"]).status == 0)
        try await Self.eventually("three deliveries after the retries: \((try? receiver.records()) ?? [])") {
            try receiver.accepted().count == 3
        }
        let records = try receiver.records()
        let unverified = records.filter { !$0.verified }
        #expect(unverified.isEmpty, "every attempt is signed with the secret: \(records)")
        let accepted = try receiver.accepted()
        #expect(accepted.map(\.status) == ["open", "placed", "preparing"])
        #expect(accepted.compactMap(\.seq) == [1, 2, 3])
        // The first event's tries: 500, a timeout (never answered, so never logged), 429, then accepted; each try's
        // id is the same and its timestamp its own.
        let first = records.filter { $0.id == accepted[0].id }
        #expect(first.compactMap(\.answered) == [500, 429, 200], "\(records)")
        let state = try Self.outbox(daemon)["shop"]
        #expect(state?["state"] as? String == "idle" && state?["waiting"] as? Int == 0, "\(String(describing: state))")
        _ = try daemon.stop()
    }

    @Test(
        "twelve 429s with Retry-After: 0 in a row do not spend the webhook's three days: it is still enabled, and delivers",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func retryAfterZero() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        // More refusals than the schedule has steps (nine): a count of attempts would disable the webhook at the
        // ninth, a budget of time (the schedule's whole length, scaled here to 272 s) does not.
        let receiver = try WebhookReceiver(in: folder.path, script: Array(repeating: "429:0", count: 12) + ["200"])
        let daemon = try LiveDaemon(config: Self.config(webhooks: [("shop", receiver)]), directory: folder.path)
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        try await Self.eventually("delivered after twelve refusals: \((try? receiver.records()) ?? [])") {
            try receiver.accepted().count == 1
        }
        #expect(try receiver.records().filter { $0.answered == 429 }.count == 12)
        let state = try Self.outbox(daemon)["shop"]
        #expect(state?["state"] as? String == "idle", "\(String(describing: state))")
        #expect(!daemon.output.contains("outbox: disabled"), "\(daemon.output.suffix(2000))")
        _ = try daemon.stop()
    }

    @Test(
        "while a secret rotates, each message carries a signature per secret, and a receiver with either verifies it",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func secretRotation() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let old = try WebhookReceiver(in: folder.path, name: "old")
        let new = try WebhookReceiver(in: folder.path, name: "new")
        // One file with both secrets, the old first, as an operator rotating writes it.
        let both = folder.path + "/rotating.secret"
        try Data((old.secret + "\n" + new.secret + "\n").utf8).write(to: URL(fileURLWithPath: both))
        let config =
            "outbox:\n  retryScale: 0.001\nwebhooks:\n"
            + "  - {name: old, url: \"\(old.url)\", secretFile: \(both), allowPrivate: true}\n"
            + "  - {name: new, url: \"\(new.url)\", secretFile: \(both), allowPrivate: true}\n"
        let daemon = try LiveDaemon(config: config, directory: folder.path)
        #expect(try daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        try await Self.eventually("both receivers verified the message") {
            try old.accepted().count == 1 && new.accepted().count == 1
        }
        #expect(try (old.records() + new.records()).allSatisfy { $0.verified })
        _ = try daemon.stop()
    }

    @Test(
        "a receiver that answers 410 disables its webhook: logged at err, shown, and retry enables it",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func webhookGone() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let gone = try WebhookReceiver(in: folder.path, name: "gone", always: "410")
        let daemon = try LiveDaemon(config: Self.config(webhooks: [("old", gone)]), directory: folder.path)
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        try await Self.eventually("the webhook disabled") {
            try Self.outbox(daemon)["old"]?["state"] as? String == "disabled"
        }
        #expect(try gone.records().count == 1, "410 is not retried")
        let listed = try daemon.pizzactl(["outbox"])
        #expect(listed.stdout.contains("disabled: the receiver answered that it is gone: HTTP 410"), "\(listed)")
        #expect(listed.stdout.contains("pizzactl outbox retry old"), "\(listed)")
        #expect(daemon.output.contains("ERROR") && daemon.output.contains("outbox: disabled"), "\(daemon.output)")
        let metrics = try daemon.pizzactl(["metrics"]).stdout
        #expect(metrics.contains(#"pizzad_outbox_disabled{destination="old",kind="webhook"} 1"#), "\(metrics)")
        #expect(try daemon.pizzactl(["outbox", "retry", "old"]).status == 0)
        try await Self.eventually("tried again") { try gone.records().count == 2 }
        #expect(try daemon.pizzactl(["outbox", "retry", "nobody"]).status == 1)
        _ = try daemon.stop()
    }

    @Test(
        "unreachable, wrong-certificate, redirecting and endlessly slow webhooks: each a clear error, orders unhurt",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func badWebhooks() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let (certificate, key) = try selfSignedCertificate(in: folder.path)
        let tls = try WebhookReceiver(in: folder.path, name: "tls", tls: (certificate, key))
        let redirect = try WebhookReceiver(in: folder.path, name: "redirect", always: "redirect")
        let slow = try WebhookReceiver(in: folder.path, name: "slow", always: "slow")
        let closed = try freeLoopbackPort()
        let printer = try await KitchenPrinter()
        defer { Task { await printer.stop() } }
        printer.neverRead(true)
        let config =
            Self.config(printers: [("stuck", printer)], webhooks: [("redirect", redirect), ("slow", slow)])
                + """
                  - name: tls
                    url: https://127.0.0.1:\(tls.port)/hook
                    secretFile: \(tls.secretFile)
                    allowPrivate: true
                  - name: nobody
                    url: http://127.0.0.1:\(closed)/hook
                    secretFile: \(tls.secretFile)
                    allowPrivate: true

                """
        let daemon = try LiveDaemon(config: config, directory: folder.path)
        // Each order is answered while every receiver hangs or refuses: none waits for a delivery, which would
        // take the webhook timeout (2 s) or more. Each is one pizzactl process, well under a second on its own.
        var slowest = 0.0
        for _ in 1...20 {
            let clock = Stopwatch()
            #expect(try daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
            slowest = max(slowest, clock.seconds)
        }
        #expect(slowest < (sanitizerIsActive ? 6 : 1.5), "an order took \(slowest) s beside dead receivers")
        try await Self.eventually("every destination failing with its reason") {
            let states = try Self.outbox(daemon)
            return ["redirect", "slow", "tls", "nobody", "stuck"].allSatisfy {
                states[$0]?["lastError"] is String && states[$0]?["state"] as? String == "failing"
            }
        }
        let states = try Self.outbox(daemon)
        func error(_ name: String) -> String { states[name]?["lastError"] as? String ?? "" }
        #expect(error("redirect").contains("redirects are not followed"), "\(error("redirect"))")
        #expect(error("slow").contains("timed out"), "\(error("slow"))")
        #expect(error("tls").lowercased().contains("certificate") || error("tls").contains("TLS"), "\(error("tls"))")
        #expect(error("nobody").lowercased().contains("refused"), "\(error("nobody"))")
        #expect(error("stuck").contains("no answer"), "\(error("stuck"))")
        #expect(states["stuck"]?["printer"] as? String == "unreachable")
        // The printer that took the connection and never read: back to reading, it prints each ticket once.
        printer.neverRead(false)
        try await Self.eventually("the 20 tickets") { printer.tickets.count == 20 }
        _ = try daemon.stop()
    }

    @Test("a printer whose outcome is unknown prints that ticket again headed REPRINT")
    func reprintAfterUnknownOutcome() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let printer = try await KitchenPrinter()
        defer { Task { await printer.stop() } }
        let daemon = try LiveDaemon(config: Self.config(printers: [("kitchen", printer)]), directory: folder.path)
        // Paper runs out while the ticket prints: the status after it says so, so it may be cut short.
        printer.outOfPaperAfterNextTicket()
        #expect(try daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        try await Self.eventually("the first print") { printer.tickets.count == 1 }
        try await Self.eventually("paper out shown") {
            try Self.outbox(daemon)["kitchen"]?["printer"] as? String == "paper_out"
        }
        // At least one more attempt while the paper is still out: it sends nothing, and must not make the next
        // print look new (the first may be on paper).
        try await Self.eventually("an attempt refused for paper") {
            (try Self.outbox(daemon)["kitchen"]?["failed"] as? Int ?? 0) >= 2
        }
        printer.set(.ready)
        try await Self.eventually("the reprint") { printer.tickets.count == 2 }
        #expect(!printer.tickets[0].contains("REPRINT") && printer.tickets[1].contains("REPRINT"), "\(printer.tickets)")
        #expect(printer.tickets[1].contains("#1"))
        _ = try daemon.stop()
    }

    @Test("a configuration naming a destination twice, or a webhook with no secret, is refused by name")
    func badConfiguration() throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let secret = folder.path + "/secret"
        try Data("whsec_\(Data(repeating: 7, count: 32).base64EncodedString())\n".utf8).write(
            to: URL(fileURLWithPath: secret))
        let cases: [(String, String)] = [
            (
                "printers:\n  - {name: kitchen, address: \"192.0.2.5:9100\"}\nwebhooks:\n"
                    + "  - {name: kitchen, url: \"https://example.com/h\", secretFile: \(secret)}\n",
                "key 'webhooks': names 'kitchen' twice"
            ),
            (
                "webhooks:\n  - {name: shop, url: \"https://example.com/h\"}\n",
                "key 'webhooks[0].secretFile': is missing"
            ),
            (
                "webhooks:\n  - {name: shop, url: \"https://10.0.0.5/h\", secretFile: \(secret)}\n",
                "key 'webhooks[0].url': 10.0.0.5 is a private address"
            ),
            ("printers:\n  - {name: bar, address: \"192.0.2.5:9100\", columns: 40}\n", "key 'printers[0].columns'"),
            (
                "printers:\n  - {name: bar, address: \"192.0.2.5:9100\", kinds: [calzone]}\n",
                "'calzone' is not on the menu"
            ),
            ("printers:\n  - {name: bar, address: nowhere}\n", "key 'printers[0].address'"),
            (
                "printers:\n  - {name: bar, address: \"192.0.2.5:9100\", colour: red}\n",
                "'printers[0].colour': unknown key"
            ),
        ]
        for (yaml, expected) in cases {
            let path = folder.path + "/pizzad.yaml"
            try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
            let checked = try run(BuiltPrograms.pizzad, ["check-config", "--config", path])
            #expect(checked.status == 78, "\(yaml): \(checked)")
            #expect(checked.stderr.contains(expected), "\(yaml): \(checked)")
        }
    }

    @Test(
        "SIGKILL in the middle of deliveries under load: after a restart every committed change reaches every receiver",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func crashUnderLoad() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let printer = try await KitchenPrinter()
        defer { Task { await printer.stop() } }
        let receiver = try WebhookReceiver(in: folder.path)
        let config = Self.config(printers: [("kitchen", printer)], webhooks: [("shop", receiver)])
        var daemon = try PizzadProcess(config: config, directory: folder.path)
        let socket = daemon.socket
        // Four clients create orders (placed) and make refused changes, until the daemon is gone: on threads of their
        // own, as pizzactl blocks (Swift's pool has as many threads as cores).
        let made = Locked(0)
        let running = Locked(4)
        for client in 1...4 {
            Thread.detachNewThread {
                defer { running.withLock { $0 -= 1 } }
                while true {
                    let created = try? run(
                        Binaries.pizzactl,
                        ["--socket", socket, "order", "new", "--place", "--customer", "client \(client)", "cheese"])
                    guard created?.status == 0 else { return }
                    made.withLock { $0 += 1 }
                    // Refused: an order that does not exist; nothing is committed, so nothing may be sent.
                    _ = try? run(Binaries.pizzactl, ["--socket", socket, "order", "advance", "999999"])
                }
            }
        }
        try await Self.eventually("deliveries under way") { try receiver.accepted().count >= 20 }
        daemon.kill()
        try await Self.eventually("the clients stopped") { running.withLock { $0 } == 0 }
        #expect(made.withLock { $0 } >= 20)
        daemon = try PizzadProcess(config: config, directory: folder.path)
        let audited = try sqlite3(daemon.database, "SELECT seq FROM audit_log ORDER BY seq").split(separator: "\n")
            .compactMap { Int64($0) }
        #expect(audited.count >= made.withLock { $0 }, "every acknowledged order is committed")
        try await Self.eventually("every committed change delivered after the restart") {
            Set(try receiver.accepted().compactMap(\.seq)) == Set(audited)
        }
        let accepted = try receiver.accepted()
        #expect(Set(accepted.compactMap(\.seq)).isSubset(of: Set(audited)), "nothing for a change that did not commit")
        // A message sent twice (across the crash) carries the same id both times.
        var idBySeq: [Int64: String] = [:]
        for record in accepted {
            guard let seq = record.seq, let id = record.id else { continue }
            #expect(idBySeq[seq] == nil || idBySeq[seq] == id)
            idBySeq[seq] = id
        }
        try await Self.eventually("a ticket for every order") {
            Set(printer.tickets.compactMap(Self.orderNumber)) == Set(1...Int64(audited.count))
        }
        let duplicates = printer.tickets.count - audited.count
        #expect(duplicates <= 1, "at most the ticket under way at the crash prints twice: \(duplicates)")
        _ = try daemon.stop()
    }

    /// The order number a ticket prints large (`#12`).
    static func orderNumber(_ ticket: String) -> Int64? {
        ticket.split(separator: "\n").first { $0.hasPrefix("#") }.flatMap { Int64($0.dropFirst()) }
    }
}

extension OutboxTests {
    @Test(
        "a restore from an older copy makes a seq again for another change: it gets another webhook-id",
        .enabled(if: WebhookReceiver.available, WebhookReceiver.missing))
    func webhookIDsAfterRestore() async throws {
        let folder = try TemporaryFolder("pizzad-outbox-restore")
        let receiver = try WebhookReceiver(in: folder.path)
        let config = Self.config(webhooks: [("shop", receiver)])
        var daemon = try LiveDaemon(config: config, directory: folder.path)
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        let older = folder.path + "/older.sqlite"
        #expect(try daemon.pizzactl(["db", "backup", older]).status == 0)
        #expect(try daemon.pizzactl(["order", "new", "seafood"]).status == 0)
        try await Self.eventually("seq 1 and 2 delivered") { Set(try receiver.accepted().compactMap(\.seq)) == [1, 2] }
        _ = try daemon.stop()
        let restored = try run(
            Binaries.pizzad, ["restore", "--from-backup", older, "--database", daemon.database, "--force"],
            environment: PizzadEnvironment.scrubbed(overriding: [:]), timeout: 120)
        #expect(restored.status == 0, "\(restored)")
        daemon = try LiveDaemon(config: config, directory: folder.path)
        // Seq 2 again, for another change: the order made now.
        #expect(try daemon.pizzactl(["order", "new", "chicken"]).status == 0)
        try await Self.eventually("the new seq 2 delivered") {
            Set(try receiver.accepted().filter { $0.seq == 2 }.compactMap(\.id)).count == 2
        }
        // Each id names one change: a receiver that skips ids it has seen loses nothing.
        let accepted = try receiver.accepted()
        let seqsByID = Dictionary(grouping: accepted, by: { $0.id ?? "" }).mapValues { Set($0.compactMap(\.seq)) }
        #expect(seqsByID.values.allSatisfy { $0.count == 1 }, "\(seqsByID)")
        _ = try daemon.stop()
    }
}
