import Foundation
import PizzaCore
import Testing

@testable import PizzaOutbox

/// The outbox's parts in process: the retry schedule, the webhook signature (against the Standard Webhooks
/// specification's own example), the ESC/POS text and the kitchen ticket's layout.
@Suite("Outbox parts, in process")
struct OutboxUnitTests {
    @Test("the retry schedule's nine waits last at least three days whatever their jitter; its budget is time")
    func schedule() {
        let schedule = RetrySchedule(scale: 1)
        for _ in 0..<200 {
            let total = (1...9).reduce(Duration.zero) { $0 + schedule.wait(afterFailures: $1, retryAfter: nil) }
            #expect(total >= .seconds(3 * 24 * 3600), "\(total)")
            #expect(total <= .seconds(Int64(75.6 * 3600 * 1.25) + 1))
        }
        // Past the ninth, each wait is the last's: the webhook is disabled by time failing, not by a count.
        #expect(schedule.wait(afterFailures: 10, retryAfter: nil) >= .seconds(24 * 3600))
        #expect(schedule.total >= .seconds(3 * 24 * 3600))
        #expect(schedule.wait(afterFailures: 1, retryAfter: .seconds(7)) == .seconds(7))
        #expect(schedule.wait(afterFailures: 1, retryAfter: .seconds(90_000)) == .seconds(24 * 3600))
        // Retry-After: 0 is not a retry at once: ten of them take at least ten first waits, not a second.
        let zeros = (1...10).reduce(Duration.zero) { $0 + schedule.wait(afterFailures: $1, retryAfter: .zero) }
        #expect(zeros >= .seconds(50), "\(zeros)")
        #expect(RetrySchedule(scale: 0.001).wait(afterFailures: 1, retryAfter: nil) < .milliseconds(7))
    }

    @Test("the signature is the Standard Webhooks specification's example, one per secret")
    func signature() throws {
        // From the specification (standard-webhooks/spec, "Signature scheme"): this secret, id, timestamp and body.
        let key = try #require(WebhookSignature.key(fromSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body, secrets: [key, key])
        #expect(
            header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(WebhookSignature.key(fromSecret: "whsec_short") == nil)
        #expect(WebhookSignature.key(fromSecret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == nil)
    }

    @Test("text goes out in code page 858; what it lacks is transliterated")
    func codePage() {
        #expect(EscPos.encode("Zoë") == [0x5A, 0x6F, 0x89])
        #expect(EscPos.printable("Łukasz Brzęczyszczykiewicz, 5 €") == "Lukasz Brzeczyszczykiewicz, 5 €")
        #expect(EscPos.printable("日本") == "??")
        #expect(EscPos.Status(printer: 0x12, offlineCause: 0x12, paper: 0x12) == .online)
        #expect(EscPos.Status(printer: 0x1A, offlineCause: 0x32, paper: 0x72) == .paperOut)
        #expect(EscPos.Status(printer: 0x1A, offlineCause: 0x16, paper: 0x12) == .coverOpen)
    }

    @Test("a kitchen ticket: the order number large, each pizza, the note; only the printer's kinds")
    func ticket() throws {
        let pizza = Pizza(
            kind: "chicken", size: .large, crust: "thin", chiliSauce: true, ketchup: false, extras: ["olives"],
            quantity: 2, unitPrice: 1250)
        var drink = pizza
        drink.kind = "calzone"
        let cart = Cart(
            id: 42, ref: "till-1", customer: "Zoë", note: "ring twice", status: .placed,
            items: [CartItem(id: 1, pizza: pizza), CartItem(id: 2, pizza: drink)], currency: "EUR",
            createdAt: Timestamp(millisecondsSince1970: 0), updatedAt: Timestamp(millisecondsSince1970: 0), history: [])
        let ticket = try #require(
            KitchenTicket(
                cart: cart, event: .placed, at: Timestamp(millisecondsSince1970: 0), reason: nil, columns: 32,
                kinds: ["chicken"], reprint: false, timeZone: TimeZone(identifier: "UTC")!))
        #expect(
            ticket.text == """
                == #42 ==
                01.01.1970 00:00
                Ref till-1
                Zoë
                --------------------------------
                2 x chicken L
                    thin, chili, +olives
                --------------------------------
                Note: ring twice

                """)
        #expect(ticket.lines.first?.style == .large)
        #expect(
            KitchenTicket(
                cart: cart, event: .placed, at: .now(), reason: nil, columns: 32, kinds: ["seafood"], reprint: false)
                == nil)
        let bytes = EscPos.bytes(of: ticket)
        #expect(bytes.suffix(4) == [0x1D, 0x56, 66, 3], "ends with a cut")
        #expect(
            KitchenTicket.wrap("a very long customer name indeed", width: 10) == [
                "a very", "long", "customer", "name", "indeed",
            ])
    }
}

/// A ticket cannot be longer or wider than the paper allows, whatever an order holds.
@Suite("Kitchen tickets are bounded")
struct TicketBoundsTests {
    @Test("the longest allowed order prints under a metre, no line wider than the printer", arguments: [32, 42, 48])
    func longestOrder(columns: Int) throws {
        let pizza = Pizza(
            kind: "chicken", size: .large, crust: "stuffed", chiliSauce: true, ketchup: true,
            extras: Array(repeating: "mushrooms", count: 20), quantity: 50, unitPrice: 1250)
        let long = String(repeating: "Ünïcödé ", count: 125)  // 1,000 characters
        let cart = Cart(
            id: 9_223_372_036_854_775_807, ref: String(repeating: "R", count: 200), customer: long,
            note: String(repeating: "line\n", count: 200), status: .placed,
            items: (1...100).map { CartItem(id: Int64($0), pizza: pizza) }, currency: "EUR",
            createdAt: Timestamp(millisecondsSince1970: 0), updatedAt: Timestamp(millisecondsSince1970: 0), history: [])
        for event in [OutboxEvent.placed, .cancelled] {
            let ticket = try #require(
                KitchenTicket(
                    cart: cart, event: event, at: .now(), reason: long, columns: columns, kinds: nil, reprint: true))
            #expect(ticket.lines.count <= KitchenTicket.maximumLines)
            #expect(Double(ticket.lines.count + 4) * 3.75 < 1000, "\(ticket.lines.count) lines")
            for line in ticket.lines {
                let width = line.style == .large ? columns / 2 : columns
                #expect(EscPos.encode(line.text).count <= width, "\(line.text.debugDescription)")
            }
            #expect(ticket.lines.last?.text.contains("more lines") == true)
        }
    }

    @Test("combining marks print as their letter: one byte a character, never a line of '?'")
    func marks() throws {
        #expect(EscPos.encode("Zoe\u{308}") == EscPos.encode("Zoë"))
        #expect(EscPos.encode("a" + String(repeating: "\u{301}", count: 3000)).count == 1)
        #expect(EscPos.encode("Nguye\u{302}\u{303}n").count == 6)
    }
}
