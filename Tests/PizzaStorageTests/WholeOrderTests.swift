import Foundation
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaTesting
import PizzaWire
import Testing

/// A German pizzeria's menu: food at 7%, drinks at 19% (takeaway VAT), a delivery fee at 19%.
enum Pizzeria {
    static let menu = Menu(
        currency: "EUR",
        kinds: [
            PizzaKind(name: "margherita", prices: [.medium: 945, .large: 1145]),
            PizzaKind(name: "salami", prices: [.medium: 1095, .large: 1295]),
        ],
        crusts: ["classic", "thin"], extras: ["olives": 95, "extra-cheese": 135],
        products: [
            MenuProduct(id: "cola-033", name: "Cola 0.33 l", category: "drinks", price: 245, tax: "drinks"),
            MenuProduct(
                id: "garlic-bread", name: "Garlic bread", category: "sides", price: 395, tax: "food",
                options: ["extra-dip": 55]),
            MenuProduct(id: "tiramisu", name: "Tiramisu", category: "desserts", price: 475, tax: "food"),
        ],
        taxes: ["food": 700, "drinks": 1900], pizzaTax: "food",
        deliveryFee: Fee(kind: Fee.delivery, amount: 250, tax: TaxRate(name: "drinks", basisPoints: 1900)))
    static let factory = PizzaFactory(menu: menu)
}

@Suite("A shop's whole order: products, fulfilment, VAT, discounts, payments")
struct WholeOrderTests {
    let actor = Fixtures.actor

    @Test("a German pizzeria's order, food at 7% and drinks at 19% with 10% off, to the cent")
    func germanPizzeria() throws {
        // margherita L 11.45 + salami L 12.95 + tiramisu 4.75 = 29.15 food; 2 x cola 2.45 = 4.90 drinks;
        // subtotal 34.05. 10% off the order: 340.5 cents, half up 341.
        // Shared by gross: food floor(341 x 2915 / 3405) = floor(291.93) = 291, drinks floor(341 x 490 / 3405) =
        // floor(49.07) = 49; the cent left over (341 - 340) goes to the largest gross, food: 292.
        // food gross 2915 - 292 = 2623, VAT 2623 x 7/107 = 171.598 -> 172, net 2451;
        // drinks gross 490 - 49 = 441, VAT 441 x 19/119 = 70.41 -> 70, net 371. Total 3405 - 341 = 3064 = 2623 + 441.
        let f = Pizzeria.factory
        var cart = Cart(
            id: 1, ref: nil, customer: "Ann", note: nil, status: .open, items: [], currency: "EUR",
            createdAt: .now(), updatedAt: .now(), history: [])
        try cart.add(try f.builder(for: "margherita").size("L").build(), itemID: 1, at: .now())
        try cart.add(try f.builder(for: "salami").size("L").build(), itemID: 2, at: .now())
        try cart.add(try f.product("cola-033", quantity: 2), itemID: 3, at: .now())
        try cart.add(try f.product("tiramisu"), itemID: 4, at: .now())
        try cart.discount(.percent(10), item: nil, reason: "regular", discountID: 5, by: actor, at: .now())
        #expect(cart.subtotal == 3405)
        #expect(cart.discounts.map(\.amount) == [341])
        #expect(cart.total == 3064)
        let taxes = cart.taxes.map {
            [$0.rate.name, "\($0.rate.basisPoints)", "\($0.gross)", "\($0.net)", "\($0.tax)"]
        }
        #expect(taxes == [["drinks", "1900", "441", "371", "70"], ["food", "700", "2623", "2451", "172"]])
        #expect(cart.balance == 3064)
        try cart.pay(.card, amount: 3064, ref: "terminal-77", paymentID: 6, by: actor, at: .now())
        #expect(cart.paid == 3064 && cart.balance == 0)
    }

    @Test("figures hold over 3,000 generated orders: total, taxes, net + tax, balance, all in cents")
    func properties() throws {
        var random = SeededRandom(seed: 0x5EED_0017)
        var checked = 0
        for index in 0..<3000 {
            let cart = try Generated.order(id: Int64(index + 1), random: &random, actor: actor)
            try Generated.checkFigures(cart)
            // The wire form reads back to the same order and the same figures.
            let read = try Cart(wire: try JSONParser.parse(cart.wireText))
            #expect(read == cart, "order \(index) reads back from its wire form")
            checked += 1
        }
        #expect(checked == 3000)
    }

    @Test("the same orders give the same figures after a restart (read back from SQLite)")
    func sameAfterRestart() async throws {
        let folder = try TemporaryFolder("pizzad-whole")
        let path = folder.path + "/pizzad.sqlite"
        var random = SeededRandom(seed: 0xC0FFEE)
        var made: [Int64: (total: Int64, taxes: [TaxLine], paid: Int64, wire: String)] = [:]
        do {
            let book = OrderBook(store: try SQLiteOrderStore(path: path, migrations: Fixtures.migrations))
            let repository = book.repository
            for _ in 0..<60 {
                let order = try await Generated.place(repository: repository, random: &random, actor: actor)
                made[order.id] = (order.total, order.taxes, order.paid, order.wireText)
            }
            #expect(try book.store.verifyAudit().ok)
            await book.store.close()
        }
        let book = OrderBook(store: try SQLiteOrderStore(path: path, migrations: Fixtures.migrations))
        for (id, figures) in made {
            let cart = try book.repository.cart(id: id)
            #expect(cart.total == figures.total && cart.taxes == figures.taxes && cart.paid == figures.paid)
            #expect(cart.wireText == figures.wire, "order \(id) reads back as it was answered")
            try Generated.checkFigures(cart)
        }
        // The stored figures are the computed ones (what a user reads with sqlite3).
        let stored = try Fixtures.sqlite3(
            path, "SELECT count(*) FROM carts WHERE total < 0 OR subtotal < total - 100000")
        #expect(stored == "0")
        #expect(try book.store.verifyAudit().ok)
        await book.store.close()
    }

    @Test("an 0.4.0 database with orders upgrades: the audit verifies, old orders are pickups with no payments")
    func upgradeFrom040() async throws {
        let folder = try TemporaryFolder("pizzad-upgrade")
        let path = try Fixtures.schema6Database(in: folder)
        let before = try Fixtures.sqlite3(path, "SELECT id, status, total FROM carts ORDER BY id")
        let store = try SQLiteOrderStore(path: path, migrations: Fixtures.migrations)
        #expect(store.schemaVersion == 8)
        #expect(try store.verifyAudit().ok)
        let book = OrderBook(store: store)
        for line in before.split(separator: "\n") {
            let fields = line.split(separator: "|")
            let cart = try book.repository.cart(id: Int64(fields[0])!)
            #expect(cart.fulfilment == .pickup && cart.payments.isEmpty && cart.discounts.isEmpty && cart.fees.isEmpty)
            #expect(cart.items.allSatisfy { $0.pizza.tax == .none })
            #expect(cart.subtotal == Int64(fields[2])!)
            #expect(cart.total == (fields[1] == "cancelled" ? 0 : Int64(fields[2])!))
            #expect(cart.taxes.allSatisfy { $0.rate == .none && $0.tax == 0 })
        }
        // An old order takes the new changes, and the chain still verifies.
        let preparing = try #require(try book.repository.list(OrderQuery(status: .preparing)).orders.first)
        let paid = try await book.repository.perform(
            .pay(.cash, amount: preparing.total, ref: nil, order: preparing.id), by: actor
        ).cart
        #expect(paid.balance == 0)
        #expect(try store.verifyAudit().ok)
        #expect(try Fixtures.sqlite3(path, "PRAGMA foreign_key_check; PRAGMA integrity_check") == "ok")
        await store.close()
    }

    @Test(
        "bad input is a validation naming the field, and nothing is written",
        arguments: [
            (#"{"items":[{"product":"lemonade"}]}"#, "items[0].product"),
            (#"{"items":[{"product":"garlic-bread","options":["ketchup"]}]}"#, "items[0].options"),
            (#"{"items":[{"product":"cola-033","quantity":4611686018427387904}]}"#, "items[0].quantity"),
            (#"{"items":[{"product":"cola-033","note":"\#(String(repeating: "x", count: 201))"}]}"#, "items[0].note"),
            (#"{"fulfilment":{"type":"delivery","phone":"030 1234"}}"#, "fulfilment.address"),
            (
                #"{"fulfilment":{"type":"delivery","address":{"street":"Hauptstr. 5","postcode":"10115","city":"Berlin"}}}"#,
                "fulfilment.phone"
            ),
            (#"{"fulfilment":{"type":"dinein"}}"#, "fulfilment.table"),
            (#"{"fulfilment":{"type":"drone"}}"#, "fulfilment"),
            (#"{"fulfilment":{"type":"pickup","dueAt":"tonight"}}"#, "fulfilment"),
        ])
    func badCreate(body: String, field: String) async throws {
        let kitchen = try Kitchen()
        let before = try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM audit_log")
        do {
            let params = Params(try JSONParser.parse(body).objectValue ?? [])
            let request = try ChangeRequest.create(params, factory: Pizzeria.factory)
            _ = try await kitchen.repository.perform(request, by: actor)
            Issue.record("\(body) was accepted")
        } catch {
            let rpc = (error as? RPCError) ?? (error as? any DomainFailure).map { RPCError($0) }
            #expect(rpc?.code == .validation || rpc?.code == .invalidParams, "\(error)")
            #expect(rpc?.data?["field"]?.stringValue == field, "\(error)")
        }
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM audit_log") == before)
    }

    @Test("bad money changes are validations naming the field, and nothing is written")
    func badMoney() async throws {
        let kitchen = try Kitchen()
        let repository = kitchen.repository
        let cart = try await repository.perform(
            .create(NewOrder(pizzas: [try Pizzeria.factory.makePizza("salami")], place: true, currency: "EUR")),
            by: actor
        ).cart
        let paid = try await repository.perform(.pay(.card, amount: 500, ref: "t-1", order: cart.id), by: actor).cart
        let payment = try #require(paid.payments.first?.id)
        let entries = try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM audit_log")
        let refused: [(ChangeRequest, String)] = [
            (.pay(.cash, amount: -5, ref: nil, order: cart.id), "amount"),
            (.pay(.cash, amount: 1 << 62, ref: nil, order: cart.id), "amount"),
            (.discount(.percent(101), item: nil, reason: "too kind", order: cart.id), "percent"),
            (.discount(.amount(cart.total + 1), item: nil, reason: "too kind", order: cart.id), "amount"),
            (.discount(.amount(-1), item: nil, reason: "negative", order: cart.id), "amount"),
            (.refund(payment: payment, amount: 501, reason: "more than paid", order: cart.id), "amount"),
            (.refund(payment: 999_999, amount: 1, reason: "no such payment", order: cart.id), "payment"),
            (.pay(.card, amount: 600, ref: "t-1", order: cart.id), "ref"),
        ]
        for (request, field) in refused {
            do {
                _ = try await repository.perform(request, by: actor)
                Issue.record("\(request) was accepted")
            } catch let error as OrderError {
                #expect(error.details.field == field, "\(request): \(error)")
            }
        }
        // The same ref and amount again is the same payment: nothing new.
        let again = try await repository.perform(.pay(.card, amount: 500, ref: "t-1", order: cart.id), by: actor)
        #expect(again.change == nil && again.cart.payments.count == 1)
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM audit_log") == entries)
        // A cancelled order takes no payment, but its payment can be refunded (its balance is negative until then).
        let cancelled = try await repository.cancel(cart.id, reason: "closed early", by: actor).cart
        #expect(cancelled.total == 0 && cancelled.balance == -500)
        await #expect(throws: OrderError.self) {
            _ = try await repository.perform(.pay(.cash, amount: 100, ref: nil, order: cart.id), by: actor)
        }
        let refunded = try await repository.perform(
            .refund(payment: payment, amount: 500, reason: "cancelled", order: cart.id), by: actor
        ).cart
        #expect(refunded.balance == 0 && refunded.payments.last?.refunds == payment)
        #expect(refunded.payments.last?.tender == .card && refunded.payments.last?.amount == -500)
        #expect(try kitchen.store.verifyAudit().ok)
    }

    @Test("a delivery carries the menu's fee, needs phone and address, and the fee goes with the delivery")
    func delivery() async throws {
        let kitchen = try Kitchen()
        let address = Fulfilment.Address(street: "Hauptstr. 5", postcode: "10115", city: "Berlin", notes: "ring twice")
        let due = Timestamp(iso8601: "2026-12-06T19:30:00.000Z")!
        let delivery = Fulfilment(type: .delivery, phone: "030 1234567", address: address, dueAt: due)
        let cart = try await kitchen.repository.perform(
            .create(
                NewOrder(
                    pizzas: [try Pizzeria.factory.makePizza("margherita")],
                    products: [try Pizzeria.factory.product("cola-033")], fulfilment: delivery,
                    deliveryFee: Pizzeria.menu.deliveryFee, place: true, currency: "EUR")),
            by: actor
        ).cart
        #expect(cart.fees.map(\.amount) == [250])
        #expect(cart.total == 945 + 245 + 250)
        #expect(Money.sum(cart.taxes.map(\.gross)) == cart.total)
        let pickup = try await kitchen.repository.perform(
            .setFulfilment(.pickup, deliveryFee: Pizzeria.menu.deliveryFee, order: cart.id), by: actor
        ).cart
        #expect(pickup.fees.isEmpty && pickup.total == 945 + 245)
        let stored = try Fixtures.sqlite3(
            kitchen.path, "SELECT fulfilment, street, due_at FROM carts WHERE id = \(cart.id)")
        #expect(stored == "pickup||")
        let read = try kitchen.repository.cart(id: cart.id)
        #expect(read == pickup)
    }
}

extension WholeOrderTests {
    @Test("order.list filters by fulfilment type and sorts by due time (as soon as possible by when it was made)")
    func listByDue() async throws {
        let kitchen = try Kitchen()
        let address = Fulfilment.Address(street: "Hauptstr. 5", postcode: "10115", city: "Berlin")
        let now = Timestamp.now().millisecondsSince1970
        func order(_ type: Fulfilment.Kind, dueInMinutes: Int64?) async throws -> Int64 {
            let fulfilment = Fulfilment(
                type: type, phone: type == .delivery ? "030 1" : nil, address: type == .delivery ? address : nil,
                table: type == .dinein ? "7" : nil,
                dueAt: dueInMinutes.map { Timestamp(millisecondsSince1970: now + $0 * 60_000) })
            return try await kitchen.repository.perform(
                .create(
                    NewOrder(
                        pizzas: [try Pizzeria.factory.makePizza("salami")], fulfilment: fulfilment, place: true,
                        currency: "EUR")),
                by: actor
            ).cart.id
        }
        let late = try await order(.delivery, dueInMinutes: 90)
        let soon = try await order(.delivery, dueInMinutes: 20)
        let asap = try await order(.pickup, dueInMinutes: nil)
        let table = try await order(.dinein, dueInMinutes: 45)
        let byDue = try kitchen.repository.list(OrderQuery(sort: .due)).orders.map(\.id)
        #expect(byDue == [asap, soon, table, late])
        let deliveries = try kitchen.repository.list(OrderQuery(type: .delivery, sort: .due)).orders.map(\.id)
        #expect(deliveries == [soon, late])
        // Pages by due time go on after the last one's place.
        let first = try kitchen.repository.list(OrderQuery(limit: 2, sort: .due))
        #expect(first.orders.map(\.id) == [asap, soon] && first.next == soon)
        let rest = try kitchen.repository.list(OrderQuery(limit: 2, after: first.next, sort: .due))
        #expect(rest.orders.map(\.id) == [table, late] && rest.next == nil)
        #expect(try kitchen.repository.list(OrderQuery()).orders.map(\.id) == [table, asap, soon, late])
        let plan = try Fixtures.sqlite3(
            kitchen.path,
            "EXPLAIN QUERY PLAN SELECT id FROM carts ORDER BY coalesce(due_at, created_at), id LIMIT 51")
        #expect(plan.contains("carts_by_due"), "\(plan)")
    }
}

extension WholeOrderTests {
    @Test("each audit entry's before is the order as the entry before it left it, for changes in one group commit too")
    func beforeIsTheLastAfter() async throws {
        let kitchen = try Kitchen()
        let repository = kitchen.repository
        let cart = try await repository.perform(
            .create(NewOrder(pizzas: [try Pizzeria.factory.makePizza("salami")], place: true, currency: "EUR")),
            by: actor
        ).cart
        // Twenty payments at once: most share a group commit and a millisecond, so a text kept for the order
        // before one of them committed must not be taken for its `before`.
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    _ = try? await repository.perform(
                        .pay(.cash, amount: 10, ref: "p-\(index)", order: cart.id), by: self.actor)
                }
            }
        }
        _ = try await repository.advance(cart.id, by: actor)
        let entries = try kitchen.store.auditEntries(after: 0, limit: 100, order: cart.id)
        #expect(entries.count == 22)
        for (previous, entry) in zip(entries, entries.dropFirst()) {
            #expect(entry.before == previous.after, "entry \(entry.seq)'s before is not entry \(previous.seq)'s after")
        }
        #expect(try kitchen.store.verifyAudit().ok)
    }
}

/// A seeded generator (SplitMix64), so that a failing order can be made again.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Orders made at random from the pizzeria's menu, through the cart's own rules.
enum Generated {
    static let kinds = ["margherita", "salami"]
    static let products = ["cola-033", "garlic-bread", "tiramisu"]

    static func pizza(_ random: inout SeededRandom) throws -> Pizza {
        var builder = try Pizzeria.factory.builder(for: kinds.randomElement(using: &random)!)
            .size(Bool.random(using: &random) ? "M" : "L").quantity(Int.random(in: 1...5, using: &random))
        if Bool.random(using: &random) { builder = builder.extra("olives") }
        return try builder.build()
    }

    static func product(_ random: inout SeededRandom) throws -> Product {
        let id = products.randomElement(using: &random)!
        let options = id == "garlic-bread" && Bool.random(using: &random) ? ["extra-dip"] : []
        return try Pizzeria.factory.product(id, quantity: Int.random(in: 1...6, using: &random), options: options)
    }

    /// An order of 1-8 lines with 0-3 discounts, maybe a delivery fee, payments and refunds; some cancelled.
    static func order(id: Int64, random: inout SeededRandom, actor: ChangeActor) throws -> Cart {
        let now = Timestamp(millisecondsSince1970: 1_796_000_000_000)
        var cart = Cart(
            id: id, ref: nil, customer: nil, note: nil, status: .open, items: [], currency: "EUR", createdAt: now,
            updatedAt: now, history: [StatusChange(from: nil, to: .open, at: now, actor: actor)])
        var next: Int64 = 1
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            if Bool.random(using: &random) {
                try cart.add(try pizza(&random), itemID: next, at: now)
            } else {
                try cart.add(try product(&random), itemID: next, at: now)
            }
            next += 1
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            let address = Fulfilment.Address(street: "Hauptstr. 5", postcode: "10115", city: "Berlin")
            try cart.setFulfilment(
                Fulfilment(type: .delivery, phone: "030 1", address: address), deliveryFee: Pizzeria.menu.deliveryFee,
                at: now)
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let lines = cart.items.map(\.id) + cart.products.map(\.id)
            let item = Bool.random(using: &random) ? lines.randomElement(using: &random) : nil
            let size: Cart.DiscountSize =
                Bool.random(using: &random)
                ? .percent(Int.random(in: 1...100, using: &random))
                : .amount(Int64.random(in: 1...2000, using: &random))
            // Some are refused (more than is left): the cart is then unchanged, as in the repository.
            var attempt = cart
            if (try? attempt.discount(size, item: item, reason: "r", discountID: next, by: actor, at: now)) != nil {
                cart = attempt
            }
            next += 1
        }
        try cart.apply(.place, by: actor, at: now)
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let amount = Int64.random(in: 1...max(1, cart.total), using: &random)
            try cart.pay(
                Tender.allCases.randomElement(using: &random)!, amount: amount, ref: nil, paymentID: next,
                by: actor, at: now)
            next += 1
        }
        if let payment = cart.payments.first, Bool.random(using: &random) {
            try cart.refund(
                payment: payment.id, amount: Int64.random(in: 1...payment.amount, using: &random), reason: "r",
                refundID: next, by: actor, at: now)
            next += 1
        }
        if Int.random(in: 0..<10, using: &random) == 0 { try cart.apply(.cancel, reason: "r", by: actor, at: now) }
        return cart
    }

    /// CONTRACT section 17's figures: total = subtotal - discounts + fees (0 once cancelled); the taxes' gross adds
    /// up to the total; net + tax = gross and tax = round(gross x bp / (10000 + bp)) per rate; balance = total - paid.
    static func checkFigures(_ cart: Cart, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = cart.items.map(\.pizza.price) + cart.products.map(\.product.price)
        #expect(cart.subtotal == Money.sum(lines), sourceLocation: sourceLocation)
        if cart.status == .cancelled {
            #expect(cart.total == 0 && cart.taxes.isEmpty, sourceLocation: sourceLocation)
        } else {
            #expect(
                cart.total == cart.subtotal - cart.discountTotal + cart.feeTotal, sourceLocation: sourceLocation)
            #expect(Money.sum(cart.taxes.map(\.gross)) == cart.total, sourceLocation: sourceLocation)
            #expect(cart.total >= 0, sourceLocation: sourceLocation)
        }
        for line in cart.taxes {
            #expect(line.net + line.tax == line.gross, sourceLocation: sourceLocation)
            // Half up: 2 x gross x bp against (2 x tax - 1) and (2 x tax + 1) times (10000 + bp).
            let exact = Double(line.gross) * Double(line.rate.basisPoints) / Double(10_000 + line.rate.basisPoints)
            #expect(abs(Double(line.tax) - exact) <= 0.5, sourceLocation: sourceLocation)
        }
        #expect(cart.balance == cart.total - cart.paid, sourceLocation: sourceLocation)
    }

    /// An order made through the repository (create, discounts, placing, payments), as it was answered.
    static func place(
        repository: OrderRepository<SQLiteOrderStore>, random: inout SeededRandom, actor: ChangeActor
    ) async throws -> Cart {
        let template = try order(id: 0, random: &random, actor: actor)
        var cart = try await repository.perform(
            .create(
                NewOrder(
                    customer: "guest", pizzas: template.items.map(\.pizza),
                    products: template.products.map(\.product), fulfilment: template.fulfilment,
                    deliveryFee: Pizzeria.menu.deliveryFee, currency: "EUR")),
            by: actor
        ).cart
        for discount in template.discounts where discount.item == nil {
            let size: Cart.DiscountSize = discount.percent.map { .percent($0) } ?? .amount(discount.amount)
            cart = try await repository.perform(
                .discount(size, item: nil, reason: discount.reason, order: cart.id), by: actor
            ).cart
        }
        cart = try await repository.place(cart.id, by: actor).cart
        for payment in template.payments where payment.amount > 0 && payment.amount <= cart.total {
            cart = try await repository.perform(
                .pay(payment.tender, amount: payment.amount, ref: nil, order: cart.id), by: actor
            ).cart
        }
        return cart
    }
}
