public import PizzaCore
import PizzaWire

/// The order changes as the control socket's `order.*` parameters and the order API's bodies spell them (the same
/// fields, CONTRACT sections 4 and 15): each checked once, here, for both.
extension ChangeRequest {
    /// `order.create` and `POST /v1/orders`: `{customer?, ref?, note?, items?: [pizza | product], fulfilment?,
    /// place?}` (CONTRACT sections 4 and 17).
    public static func create(_ params: Params, factory: PizzaFactory) throws -> ChangeRequest {
        try params.onlyKnown(["customer", "ref", "note", "items", "place", "fulfilment"])
        let items = try params.array("items") ?? []
        guard items.count <= 100 else {
            throw RPCError.validation("items", "at most 100 items per order", allowed: ["0..100 items"])
        }
        var pizzas: [Pizza] = []
        var products: [Product] = []
        pizzas.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if item["product"] != nil {
                products.append(try factory.product(fromWire: item, path: "items[\(index)]."))
            } else {
                pizzas.append(try factory.pizza(fromWire: item, path: "items[\(index)]."))
            }
        }
        let ref = try params.string("ref")  // checked by the repository (Cart.checkRef)
        let customer = try params.string("customer").map { try Self.shopText($0, field: "customer") }
        let note = try params.string("note").map { try Self.shopText($0, field: "note", lineFeeds: true) }
        let fulfilment = try params["fulfilment"].map { try Self.fulfilment($0) } ?? .pickup
        return .create(
            NewOrder(
                customer: customer, ref: ref, note: note, pizzas: pizzas, products: products, fulfilment: fulfilment,
                deliveryFee: factory.menu.deliveryFee, place: try params.bool("place") ?? false,
                currency: factory.menu.currency))
    }

    /// `order.cancel`'s and `POST /v1/orders/{id}/cancel`'s reason: 1 to 1000 characters, white space trimmed.
    public static func cancel(order id: Int64, _ params: Params) throws -> ChangeRequest {
        let reason = try params.requiredString("reason").trimmingWhitespace
        guard !reason.isEmpty else {
            throw RPCError.validation(
                "reason", "a cancellation needs a reason (1 to 1000 characters)", allowed: ["1..1000 characters"])
        }
        return .cancel(order: id, reason: try shopText(reason, field: "reason", characters: 1...1000))
    }

    /// Text a person typed (CONTRACT: at most 1000 characters and 4000 bytes, printable, few combining marks),
    /// checked by ``ShopText`` and stored NFC-normalised.
    static func shopText(
        _ text: String, field: String, characters: ClosedRange<Int> = 0...1000, lineFeeds: Bool = false
    ) throws -> String {
        if let refusal = ShopText.refusal(
            text, field: field, characters: characters, bytes: characters.upperBound * 4, lineFeeds: lineFeeds)
        {
            throw RPCError(refusal)
        }
        return ShopText.normalized(text)
    }
}

extension String {
    /// The text without white space at either end.
    fileprivate var trimmingWhitespace: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
