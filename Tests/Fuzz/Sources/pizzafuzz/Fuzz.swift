import Glibc
import PizzaCore
import PizzaProtocol
import PizzaWire

/// One fuzzing input: a line a client might send.
///
/// Checks that nothing crashes or traps, and three invariants: a parsed JSON document written out and parsed again
/// is the same document, a parsed request written out as a line parses to the same method and id, and a line the
/// till's fast path (`OrderCreateLine`) reads is read the same by the general path.
func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    if let document = try? JSONParser.parse(bytes) {
        guard let again = try? JSONParser.parse(document.jsonText), again == document else {
            fatalError("JSON round trip changed \(document.jsonText)")
        }
    }
    if let request = try? RPCRequest.parse(bytes) {
        guard let again = try? RPCRequest.parse(Array(request.line.utf8)), again.method == request.method,
            again.id == request.id
        else { fatalError("request round trip changed \(request.line)") }
        let factory = PizzaFactory(menu: wholeMenu)
        for item in (try? request.params.array("items")) ?? [] {
            _ = try? factory.pizza(fromWire: item, path: "items[0].")
            _ = try? factory.product(fromWire: item, path: "items[0].")
        }
        _ = try? request.params.status("status")
        _ = try? request.params.timestamp("since")
        _ = try? request.params.fulfilmentType("type")
        _ = try? request.params.sort("sort")
        // The whole order's changes (CONTRACT section 17), as the socket and the API read them.
        _ = try? ChangeRequest.create(request.params, factory: factory)
        _ = try? ChangeRequest.addItem(request.params, factory: factory)
        _ = try? ChangeRequest.setFulfilment(order: 1, request.params["fulfilment"], factory: factory)
        _ = try? ChangeRequest.discount(order: 1, request.params)
        _ = try? ChangeRequest.pay(order: 1, request.params)
        _ = try? ChangeRequest.refund(order: 1, request.params)
    }
    // The till's fast path reads a line only as the general path would: the same id and the same change.
    let factory = PizzaFactory()
    if let fast = OrderCreateLine.read(bytes, factory: factory) {
        guard let request = try? RPCRequest.parse(bytes), request.method == "order.create", request.id == fast.id,
            let change = try? ChangeRequest.create(request.params, factory: factory),
            case .create(let general) = change, case .create(let read) = fast.change,
            general.customer == read.customer, general.ref == read.ref, general.note == read.note,
            general.pizzas == read.pizzas, general.products == read.products, general.fulfilment == read.fulfilment,
            general.place == read.place, general.currency == read.currency
        else {
            fatalError("the fast path read what the general path does not: \(String(decoding: bytes, as: UTF8.self))")
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? PizzaShorthand.parse(text)
    _ = try? PizzaShorthand.parse(text, products: [String(text.prefix { $0 != "," })])
    return 0
}

/// The built-in menu with products, VAT rates and a delivery fee, so that the whole order's paths are reached.
let wholeMenu = Menu(
    currency: "EUR", kinds: Menu.standard.kinds, crusts: Menu.standard.crusts, extras: Menu.standard.extras,
    products: [
        MenuProduct(id: "cola-033", name: "Cola 0.33 l", category: "drinks", price: 250, tax: "drinks"),
        MenuProduct(
            id: "garlic-bread", name: "Garlic bread", category: "sides", price: 450, tax: "food",
            options: ["extra-dip": 60]),
    ],
    taxes: ["food": 700, "drinks": 1900], pizzaTax: "food",
    deliveryFee: Fee(kind: Fee.delivery, amount: 250, tax: TaxRate(name: "food", basisPoints: 700)))
