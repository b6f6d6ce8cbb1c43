import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PizzaAPI
import PizzaCore
import PizzaStorage
import PizzaWire
import Testing

/// A shop's whole order over the order API (CONTRACT section 17): products and a delivery in `POST /v1/orders`,
/// the fulfilment, payments, discounts and refunds, each for the roles that may.
@Suite("Order API: the whole order")
struct WholeOrderRouteTests {
    static let menu = Menu(
        currency: "EUR", kinds: Menu.standard.kinds, crusts: Menu.standard.crusts, extras: Menu.standard.extras,
        products: [MenuProduct(id: "cola-033", name: "Cola 0.33 l", category: "drinks", price: 250, tax: "drinks")],
        taxes: ["food": 700, "drinks": 1900], pizzaTax: "food",
        deliveryFee: Fee(kind: Fee.delivery, amount: 250, tax: TaxRate(name: "food", basisPoints: 700)))

    static let delivery = #"""
        {"customer":"Ann","items":[{"kind":"chicken","size":"L"},{"product":"cola-033","quantity":2,"note":"cold"}],
        "fulfilment":{"type":"delivery","phone":"030 1234567","address":{"street":"Hauptstr. 5","postcode":"10115",
        "city":"Berlin"},"dueAt":"2026-12-06T19:30:00Z"},"place":true}
        """#

    @Test("a delivery with a drink, its fee, a payment kept by its key, a manager's discount and refund")
    func wholeOrder() async throws {
        let fixture = try await APIFixture()
        fixture.menu.withLock { $0 = Self.menu }
        try await fixture.test { client in
            let made = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "w1"),
                body: APIFixture.body(Self.delivery))
            #expect(made.status == .created)
            // chicken L 12.50 at 7%, 2 x cola 2.50 at 19%, the delivery fee 2.50 at 7%.
            #expect(made.json["total"]?.intValue == Int64(2000))
            #expect(made.json["fulfilment"]?["type"]?.stringValue == "delivery")
            #expect(made.json["items"]?[1]?["product"]?.stringValue == "cola-033")
            let id = try #require(made.json["id"]?.intValue)

            let pay = #"{"tender":"card","amount":1000,"ref":"terminal-1"}"#
            let paid = try await client.execute(
                uri: "/v1/orders/\(id)/payments", method: .post, headers: fixture.headers(.till, key: "p1"),
                body: APIFixture.body(pay))
            #expect(paid.status == .ok && paid.json["paid"]?.intValue == 1000 && paid.json["balance"]?.intValue == 1000)
            let retried = try await client.execute(
                uri: "/v1/orders/\(id)/payments", method: .post, headers: fixture.headers(.till, key: "p1"),
                body: APIFixture.body(pay))
            #expect(retried.json["payments"]?.arrayValue?.count == 1, "a retry with its key is the same payment")

            let tillDiscount = try await client.execute(
                uri: "/v1/orders/\(id)/discounts", method: .post, headers: fixture.headers(.till, key: "d0"),
                body: APIFixture.body(#"{"percent":10,"reason":"regular"}"#))
            #expect(tillDiscount.status == .forbidden && tillDiscount.problem == "permission_denied")
            let discounted = try await client.execute(
                uri: "/v1/orders/\(id)/discounts", method: .post, headers: fixture.headers(.manager, key: "d1"),
                body: APIFixture.body(#"{"amount":100,"reason":"late"}"#))
            #expect(discounted.status == .ok && discounted.json["total"]?.intValue == 1900)
            #expect(discounted.json["discounts"]?[0]?["by"]?["device"]?.stringValue == "manager-1")

            let payment = try #require(paid.json["payments"]?[0]?["id"]?.intValue)
            let tooMuch = try await client.execute(
                uri: "/v1/orders/\(id)/refunds", method: .post, headers: fixture.headers(.manager, key: "r0"),
                body: APIFixture.body(#"{"payment":\#(payment),"amount":1001,"reason":"x"}"#))
            #expect(tooMuch.status == .badRequest && tooMuch.problem == "validation")
            let refunded = try await client.execute(
                uri: "/v1/orders/\(id)/refunds", method: .post, headers: fixture.headers(.manager, key: "r1"),
                body: APIFixture.body(#"{"payment":\#(payment),"amount":300,"reason":"cold drinks"}"#))
            #expect(refunded.status == .ok && refunded.json["paid"]?.intValue == 700)

            let pickup = try await client.execute(
                uri: "/v1/orders/\(id)/fulfilment", method: .put, headers: fixture.headers(.till, key: "f1"),
                body: APIFixture.body(#"{"type":"pickup"}"#))
            #expect(pickup.status == .ok && pickup.json["fees"]?.arrayValue?.isEmpty == true)
            #expect(pickup.json["total"]?.intValue == 1650)
            let noAddress = try await client.execute(
                uri: "/v1/orders/\(id)/fulfilment", method: .put, headers: fixture.headers(.till, key: "f2"),
                body: APIFixture.body(#"{"type":"delivery","phone":"030 1"}"#))
            #expect(noAddress.status == .badRequest && noAddress.problem == "validation")

            let reader = try await client.execute(
                uri: "/v1/orders/\(id)/payments", method: .post, headers: fixture.headers(.reader, key: "p2"),
                body: APIFixture.body(pay))
            #expect(reader.status == .forbidden)
        }
        #expect(try fixture.orders.store.verifyAudit().ok)
    }

    @Test("a platform pays its own orders with tender platform, and no one else's")
    func platform() async throws {
        let fixture = try await APIFixture()
        fixture.menu.withLock { $0 = Self.menu }
        try await fixture.test { client in
            let own = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.platform, key: "o1"),
                body: APIFixture.body(#"{"items":[{"kind":"cheese"}],"place":true}"#))
            let tills = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "o2"),
                body: APIFixture.body(#"{"items":[{"kind":"cheese"}],"place":true}"#))
            let ownID = try #require(own.json["id"]?.intValue)
            let tillID = try #require(tills.json["id"]?.intValue)
            let card = try await client.execute(
                uri: "/v1/orders/\(ownID)/payments", method: .post, headers: fixture.headers(.platform, key: "p1"),
                body: APIFixture.body(#"{"tender":"card","amount":900}"#))
            #expect(card.status == .forbidden)
            let paid = try await client.execute(
                uri: "/v1/orders/\(ownID)/payments", method: .post, headers: fixture.headers(.platform, key: "p2"),
                body: APIFixture.body(#"{"tender":"platform","amount":900}"#))
            #expect(paid.status == .ok && paid.json["balance"]?.intValue == 0)
            let other = try await client.execute(
                uri: "/v1/orders/\(tillID)/payments", method: .post, headers: fixture.headers(.platform, key: "p3"),
                body: APIFixture.body(#"{"tender":"platform","amount":900}"#))
            #expect(other.status == .notFound)
        }
    }
}
