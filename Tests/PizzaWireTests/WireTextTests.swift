import PizzaCore
import PizzaWire
import Testing

@Suite("An order's wire text")
struct WireTextTests {
    static let actor = ChangeActor(uid: 1000, name: "ann \"the till\"", pid: 42)

    static func cart(customer: String?, note: String?, extras: [String]) -> Cart {
        let now = Timestamp.now()
        let pizza = Pizza(
            kind: "chicken", size: .large, crust: "thin", chiliSauce: true, ketchup: false, extras: extras,
            quantity: 2, unitPrice: 1250)
        return Cart(
            id: 7, ref: nil, customer: customer, note: note, status: .placed,
            items: [CartItem(id: 3, pizza: pizza), CartItem(id: 4, pizza: pizza)], currency: "EUR", createdAt: now,
            updatedAt: now,
            history: [
                StatusChange(from: nil, to: .open, at: now, actor: actor),
                StatusChange(from: .open, to: .placed, at: now, actor: actor, reason: "tab\there"),
            ])
    }

    @Test(
        "parses as the contract's order object and reads back to the same cart",
        arguments: [
            (nil, nil, []), ("Ann", "ring twice", ["olives"]),
            ("quote \" backslash \\ newline \n bell \u{07}", "é🍕\u{1F}", ["a\"b", "c\\d"]),
        ] as [(String?, String?, [String])])
    func roundTrip(customer: String?, note: String?, extras: [String]) throws {
        let cart = Self.cart(customer: customer, note: note, extras: extras)
        let parsed = try JSONParser.parse(cart.wireText)
        #expect(
            parsed.objectValue?.map(\.0)
                == [
                    "id", "ref", "customer", "note", "status", "fulfilment", "items", "subtotal", "discounts", "fees",
                    "total", "taxes", "payments", "paid", "balance", "currency", "createdAt", "updatedAt", "history",
                ])
        #expect(
            parsed["items"]?[0]?.objectValue?.map(\.0)
                == [
                    "id", "kind", "size", "crust", "chiliSauce", "ketchup", "extras", "quantity", "unitPrice", "price",
                    "tax", "basisPoints",
                ])
        #expect(parsed["history"]?[1]?.objectValue?.map(\.0) == ["from", "to", "at", "actor", "reason"])
        #expect(parsed["history"]?[1]?["actor"] == ["uid": 1000, "name": "ann \"the till\"", "pid": 42])
        #expect(parsed["ref"] == .null)
        #expect(parsed["total"]?.intValue == cart.total)
        #expect(try Cart(wire: parsed) == cart)
        // A response carries the same text unchanged.
        #expect(cart.wire.jsonText == cart.wireText)
    }

    @Test("integers and instants are written digit by digit, exact to the extremes")
    func integersAndInstants() throws {
        let numbers: [Int64] = [0, 7, -1, 10, 999_999, -1_234_567_890, .max, .min]
        let instants = [0, 951_782_400_000, 253_402_300_800_000, -1, Int64.max, .min].map(
            Timestamp.init(millisecondsSince1970:))
        var writer = JSONWriter()
        writer.open()
        for number in numbers { writer.member("n", number) }
        for instant in instants { writer.member("t", instant) }
        writer.close()
        guard case .object(let members) = try JSONParser.parse(writer.text) else {
            Issue.record("not an object: \(writer.text)")
            return
        }
        #expect(members.prefix(numbers.count).map(\.1.intValue) == numbers)
        #expect(members.dropFirst(numbers.count).map(\.1.stringValue) == instants.map(\.description))
        #expect(instants.allSatisfy { $0.description.utf8.count <= Timestamp.maximumISO8601Length })
        #expect(Timestamp(millisecondsSince1970: 951_782_400_000).description == "2000-02-29T00:00:00.000Z")
    }

    @Test("an instant written again is copied, and each instant is still its own: repeated, alternating, grown buffer")
    func repeatedInstants() throws {
        let first = Timestamp(millisecondsSince1970: 1_795_000_000_123)
        let second = Timestamp(millisecondsSince1970: 1_795_000_000_124)
        let instants = [first, first, second, second, first, second, first]
        // A small buffer, so that it is moved while the text of the last instant is in it.
        var writer = JSONWriter(capacity: 16)
        writer.open()
        for instant in instants { writer.member("t", instant) }
        writer.close()
        guard case .object(let members) = try JSONParser.parse(writer.text) else {
            Issue.record("not an object: \(writer.text)")
            return
        }
        #expect(members.map(\.1.stringValue) == instants.map(\.description))

        var cart = Self.cart(customer: "Ann", note: nil, extras: [])
        cart.updatedAt = second
        cart.history[1].at = second
        #expect(try Cart(wire: try JSONParser.parse(cart.wireText)) == cart)
    }

    @Test(
        "an order read from a damaged or foreign copy with numbers no builder makes: a named error, never a trap",
        arguments: [
            (Int64(1) << 62, Int64(100)), (Int64.max, 1), (0, 1250), (51, 1250), (-1, 1250), (2, -1),
            (2, Int64.max), (2, (Int64(1) << 40) + 1),
        ] as [(Int64, Int64)])
    func damagedNumbers(quantity: Int64, unitPrice: Int64) throws {
        let cart = Self.cart(customer: nil, note: nil, extras: [])
        let text = cart.wireText
            .replacing(#""quantity":2"#, with: #""quantity":\#(quantity)"#)
            .replacing(#""unitPrice":1250"#, with: #""unitPrice":\#(unitPrice)"#)
        #expect(throws: WireFormError.self) { try Cart(wire: try JSONParser.parse(text)) }
    }

    @Test("many lines of the highest price add up to a total that fits; a price edited past it reads as the most")
    func totalsFit() {
        let dear = Pizza(
            kind: "chicken", size: .large, crust: "thin", chiliSauce: false, ketchup: false, extras: [],
            quantity: PizzaBuilder.quantityRange.upperBound, unitPrice: Pizza.maximumUnitPrice)
        let now = Timestamp.now()
        var cart = Cart(
            id: 1, ref: nil, customer: nil, note: nil, status: .open,
            items: (0..<1000).map { CartItem(id: Int64($0), pizza: dear) }, currency: "EUR", createdAt: now,
            updatedAt: now, history: [])
        #expect(cart.total == 1000 * 50 * Pizza.maximumUnitPrice)
        // What only a hand edit of the database makes (its checks bound the quantity, not the price).
        cart.items[0].pizza.unitPrice = .max
        #expect(cart.items[0].pizza.price == .max)
        #expect(cart.total == .max)
    }
}
