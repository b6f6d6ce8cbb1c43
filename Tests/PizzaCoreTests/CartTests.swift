import PizzaCore
import Testing

@Suite("Cart and the order status machine")
struct CartTests {
    let actor = ChangeActor(uid: 1000, name: "cook", pid: 42)
    let now = Timestamp(millisecondsSince1970: 1_763_717_400_123)

    func cart() throws -> Cart {
        var cart = Cart(
            id: 1, ref: nil, customer: "Ann", note: nil, status: .open, items: [], currency: "EUR", createdAt: now,
            updatedAt: now, history: [StatusChange(from: nil, to: .open, at: now, actor: actor)])
        try cart.add(try PizzaFactory().makePizza("cheese"), itemID: 1, at: now)
        return cart
    }

    @Test("the happy path: open to delivered, with history")
    func happyPath() throws {
        var cart = try cart()
        try cart.apply(.place, by: actor, at: now)
        for expected in [OrderStatus.preparing, .baking, .boxed, .shipped, .delivered] {
            try cart.apply(.advance, by: actor, at: now)
            #expect(cart.status == expected)
        }
        #expect(cart.history.map(\.to) == [.open, .placed, .preparing, .baking, .boxed, .shipped, .delivered])
        #expect(throws: OrderError.self) { try cart.apply(.advance, by: actor, at: now) }
    }

    @Test("legal and illegal transitions from every status")
    func table() {
        for status in OrderStatus.allCases {
            for transition in Transition.allCases {
                let result = status.applying(transition)
                switch (status, transition) {
                case (.open, .place), (.placed, .advance), (.preparing, .advance), (.baking, .advance),
                    (.boxed, .advance), (.shipped, .advance):
                    #expect((try? result.get()) != nil, "\(status) \(transition)")
                case (.open, .cancel), (.placed, .cancel), (.preparing, .cancel), (.baking, .cancel), (.boxed, .cancel):
                    #expect((try? result.get()) == .cancelled)
                default:
                    #expect((try? result.get()) == nil, "\(status) \(transition) should be refused")
                }
            }
        }
    }

    @Test("an empty cart cannot be placed")
    func emptyCart() throws {
        var cart = try cart()
        try cart.remove(itemID: 1, at: now)
        #expect(throws: OrderError.emptyCart(id: 1)) { try cart.apply(.place, by: actor, at: now) }
    }

    @Test("advance with from: conflict when the order moved")
    func conflict() throws {
        var cart = try cart()
        try cart.apply(.place, by: actor, at: now)
        #expect(throws: OrderError.conflict(id: 1, expected: .open, actual: .placed)) {
            try cart.apply(.advance, expected: .open, by: actor, at: now)
        }
        try cart.apply(.advance, expected: .placed, by: actor, at: now)
        #expect(cart.status == .preparing)
    }

    @Test("never cancel after shipping")
    func cancelAfterShipping() throws {
        var cart = try cart()
        try cart.apply(.place, by: actor, at: now)
        for _ in 0..<4 { try cart.apply(.advance, by: actor, at: now) }
        #expect(cart.status == .shipped)
        #expect(throws: OrderError.self) { try cart.apply(.cancel, reason: "late", by: actor, at: now) }
    }

    @Test("items change only while open")
    func itemsOnlyWhileOpen() throws {
        var cart = try cart()
        try cart.apply(.place, by: actor, at: now)
        #expect(throws: OrderError.notOpen(id: 1, status: .placed)) {
            try cart.add(try PizzaFactory().makePizza("cheese"), itemID: 2, at: now)
        }
        #expect(throws: OrderError.notOpen(id: 1, status: .placed)) { try cart.remove(itemID: 1, at: now) }
    }

    @Test("timestamps print and parse as ISO-8601 UTC with milliseconds")
    func timestamps() {
        #expect(now.description == "2025-11-21T09:30:00.123Z")
        #expect(Timestamp(iso8601: "2025-11-21T09:30:00.123Z") == now)
        #expect(Timestamp(iso8601: "2025-11-21")?.description == "2025-11-21T00:00:00.000Z")
        #expect(Timestamp(iso8601: "1969-12-31T23:59:59.999Z")?.millisecondsSince1970 == -1)
        #expect(Timestamp(iso8601: "2025-11-21T09:30:00.1239Z")?.description == "2025-11-21T09:30:00.123Z")
        #expect(Timestamp(iso8601: "2025-11-21T09:30:00.5Z")?.description == "2025-11-21T09:30:00.500Z")
        #expect(Timestamp(iso8601: "2025-11-21T09:30:00.Z") == nil)
        #expect(Timestamp(iso8601: "2025-11-21T09:30:00") == nil)
        #expect(Timestamp(iso8601: "yesterday") == nil)
        #expect(Timestamp(iso8601: "2025-13-01") == nil)
        #expect(Timestamp(millisecondsSince1970: 0).description == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(iso8601: "0000-01-01T00:00:00.000Z")?.description == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp(iso8601: "9999-12-31T23:59:59.999Z")?.description == "9999-12-31T23:59:59.999Z")
        // Past year 9999 the text is longer, and still exact.
        #expect(Timestamp(millisecondsSince1970: 253_402_300_800_000).description == "10000-01-01T00:00:00.000Z")
        // Every printed instant parses back to itself, from 1900 to 2200.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let instant = Timestamp(
                millisecondsSince1970: Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator))
            #expect(Timestamp(iso8601: instant.description) == instant, "\(instant.millisecondsSince1970)")
        }
    }
}
