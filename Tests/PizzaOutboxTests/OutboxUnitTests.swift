import Foundation
import PizzaCore
import PizzaStorage
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

/// A shop's whole order on paper and in the outbox (CONTRACT sections 16-17).
@Suite("Outbox: the whole order")
struct WholeOrderOutboxTests {
    @Test("a delivery's ticket: type, due time, address and phone; pizzas and products with their notes")
    func deliveryTicket() throws {
        let pizza = Pizza(
            kind: "chicken", size: .large, crust: "classic", chiliSauce: false, ketchup: false, extras: [],
            quantity: 1, unitPrice: 1250, note: "well done")
        let cola = Product(
            product: "cola-033", name: "Cola 0.33 l", category: "drinks", quantity: 2, options: [], unitPrice: 250,
            tax: TaxRate(name: "drinks", basisPoints: 1900), note: "cold")
        let bread = Product(
            product: "garlic-bread", name: "Garlic bread", category: "sides", quantity: 1, options: ["extra-dip"],
            unitPrice: 510, tax: .none)
        var cart = Cart(
            id: 7, ref: nil, customer: "Ann", note: nil, status: .placed, items: [CartItem(id: 1, pizza: pizza)],
            currency: "EUR", createdAt: Timestamp(millisecondsSince1970: 0),
            updatedAt: Timestamp(millisecondsSince1970: 0), history: [],
            products: [CartProduct(id: 2, product: cola), CartProduct(id: 3, product: bread)])
        cart.fulfilment = Fulfilment(
            type: .delivery, phone: "030 1234567",
            address: Fulfilment.Address(street: "Hauptstr. 5", postcode: "10115", city: "Berlin", notes: "ring twice"),
            dueAt: Timestamp(iso8601: "1970-01-01T19:30:00.000Z"))
        let utc = TimeZone(identifier: "UTC")!
        let ticket = try #require(
            KitchenTicket(
                cart: cart, event: .placed, at: Timestamp(millisecondsSince1970: 0), reason: nil, columns: 32,
                kinds: nil, reprint: false, timeZone: utc))
        #expect(
            ticket.text == """
                == #7 ==
                01.01.1970 00:00
                Ann
                DELIVERY
                Due 01.01.1970 19:30
                Hauptstr. 5
                10115 Berlin
                ring twice
                Tel. 030 1234567
                --------------------------------
                1 x chicken L
                    classic
                    ! well done
                2 x Cola 0.33 l
                    ! cold
                1 x Garlic bread
                    +extra-dip

                """)
        // A bar printer's `items` names a category: only the drink.
        let bar = try #require(
            KitchenTicket(
                cart: cart, event: .placed, at: Timestamp(millisecondsSince1970: 0), reason: nil, columns: 32,
                kinds: ["drinks"], reprint: false, timeZone: utc))
        #expect(bar.text.contains("2 x Cola 0.33 l") && !bar.text.contains("chicken") && !bar.text.contains("Garlic"))
    }

    @Test("a discount, a payment, a refund and a new fulfilment are events of their own kind; item changes are none")
    func events() {
        func entry(_ action: String, status: String = "placed") -> AuditEntry {
            AuditEntry(
                seq: 1, at: "", actor: ChangeActor(uid: 0, name: "root", pid: 1), action: action, orderID: 1,
                statusAfter: status, reason: nil, before: nil, after: "{}", prevHash: "", hash: "")
        }
        #expect(OutboxEvent.events(of: entry("paid")) == [.paid])
        #expect(OutboxEvent.events(of: entry("refunded", status: "delivered")) == [.refunded])
        #expect(OutboxEvent.events(of: entry("discounted")) == [.discounted])
        #expect(OutboxEvent.events(of: entry("fulfilment_changed")) == [.fulfilmentChanged])
        #expect(OutboxEvent.events(of: entry("item_added", status: "open")).isEmpty)
        #expect(OutboxEvent.events(of: entry("created")) == [.created, .placed])
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

/// A listener on 127.0.0.1 that answers one request 204 and keeps its head.
final class OneShotServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var head = ""

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        listen(fd, 4)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 65536)
            var received: [UInt8] = []
            while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                let count = recv(client, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            lock.withLock { head = String(decoding: received, as: UTF8.self) }
            let answer = Array("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".utf8)
            _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(client)
        }.start()
    }

    deinit { close(fd) }

    var requestHead: String { lock.withLock { head } }
}

/// A webhook's host is looked up once, off the event loops, checked, and the delivery connects to that address: the
/// HTTP client never looks the name up again (issue 79, item 7: DNS rebinding).
@Suite("Webhooks connect to the address that was checked")
struct PinnedWebhookTests {
    static func entry() -> AuditEntry {
        AuditEntry(
            seq: 1, at: "2026-12-06T10:00:00.000Z", actor: ChangeActor(uid: 0, name: "root", pid: 1), action: "placed",
            orderID: 1, statusAfter: "placed", reason: nil, before: nil, after: #"{"id":1}"#, prevHash: "0",
            hash: "abcdef0123456789abcdef")
    }

    @Test("a name only the checked lookup knows is reached at the address it gave, looked up once per delivery")
    func pinned() async throws {
        let server = try OneShotServer()
        let lookups = Locked(0)
        let clients = PinnedClients(configuration: .init(redirectConfiguration: .disallow))
        let destination = WebhookDestination(
            settings: WebhookSettings(
                name: "shop", url: "http://orders.shop.invalid:\(server.port)/hook", secretFile: "-",
                secrets: [Array(repeating: 7, count: 32)], allowPrivate: true),
            clients: clients, schedule: RetrySchedule(scale: 0.001), timeout: .seconds(5), shopKey: "k",
            resolve: { name in
                lookups.withLock { $0 += 1 }
                return name == "orders.shop.invalid" ? ["127.0.0.1"] : []
            })
        let outcome = await destination.deliver(Self.entry(), again: false)
        await clients.shutdown()
        #expect(outcome.error == nil, "\(outcome)")
        #expect(lookups.withLock { $0 } == 1)
        #expect(
            server.requestHead.lowercased().contains("host: orders.shop.invalid:\(server.port)"),
            "\(server.requestHead)")
    }

    @Test("a name with any private address is refused unless allowPrivate, naming the address")
    func refused() async throws {
        let pinned = await PrivateAddresses.pin(
            url: "https://orders.example/hook", allowPrivate: false, resolve: { _ in ["203.0.113.7", "10.0.0.5"] })
        #expect(
            pinned == .refused("orders.example is 10.0.0.5, a private address (set allowPrivate: true to allow it)"))
        let allowed = await PrivateAddresses.pin(
            url: "https://orders.example/hook", allowPrivate: false, resolve: { _ in ["203.0.113.7"] })
        #expect(allowed == .address(host: "orders.example", address: "203.0.113.7"))
        #expect(
            await PrivateAddresses.pin(url: "https://[::1]:8443/x", allowPrivate: false, resolve: { _ in [] })
                == .refused("[::1] is ::1, a private address (set allowPrivate: true to allow it)"))
    }
}
