import Foundation
import PizzaTesting
import Testing

/// What leaves the shop (CONTRACT section 16), against real receivers: a TCP listener speaking ESC/POS as the
/// kitchen's printer, and a webhook endpoint that verifies every delivery with PyPI's `standardwebhooks`.
@Suite("Printers and webhooks", .serialized)
struct OutboxTests {
    /// `printers:` and `webhooks:` YAML for these receivers, with the retry schedule shrunk to milliseconds.
    static func config(
        printers: [(String, KitchenPrinter)] = [], webhooks: [(String, WebhookReceiver)] = [], extra: String = ""
    ) -> String {
        var text = "outbox:\n  retryScale: 0.001\n  webhookTimeoutSeconds: 2\n"
        if !printers.isEmpty {
            text += "printers:\n"
            for (name, printer) in printers {
                text += "  - name: \(name)\n    address: 127.0.0.1:\(printer.port)\n    columns: 32\n"
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

    /// Waits until `condition` holds, checking every 50 ms; fails with `what` after `seconds`.
    static func eventually(
        _ what: @autoclosure () -> String, seconds: Double = 20, _ condition: () throws -> Bool
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
    static func outbox(_ daemon: PizzadProcess) throws -> [String: [String: Any]] {
        let listed = try daemon.pizzactl(["--json", "outbox"])
        guard listed.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any],
            let destinations = object["destinations"] as? [[String: Any]]
        else { throw HarnessError("pizzactl outbox: \(listed)") }
        return Dictionary(uniqueKeysWithValues: destinations.map { ($0["name"] as? String ?? "?", $0) })
    }

    @Test("a placed order prints a kitchen ticket and a cancelled one a cancellation; the webhook hears every change")
    func ticketsAndWebhook() async throws {
        try #require(WebhookReceiver.available, "the standardwebhooks venv is missing: run .ci/run")
        let folder = try TemporaryFolder("pizzad-outbox")
        let printer = try await KitchenPrinter()
        defer { Task { await printer.stop() } }
        let receiver = try WebhookReceiver(in: folder.path)
        let daemon = try PizzadProcess(
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
        let states = try Self.outbox(daemon)
        #expect(states["kitchen"]?["state"] as? String == "idle")
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

    @Test("a printer off for a while gets every waiting ticket once, in order, when it is back; paper out is shown")
    func printerOffThenBack() async throws {
        let folder = try TemporaryFolder("pizzad-outbox")
        let printer = try await KitchenPrinter()
        defer { Task { await printer.stop() } }
        let boardPort = try freeLoopbackPort()
        let daemon = try PizzadProcess(
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
        let back = Stopwatch()
        try await Self.eventually("four tickets") { printer.tickets.count == 4 }
        #expect(back.seconds < 5, "the waiting tickets printed \(back.seconds) s after the printer came back")
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
}
