public import PizzaCore
public import PizzaWire

/// The changes of a shop's whole order (CONTRACT section 17) as the socket's params and the API's bodies spell them.
extension ChangeRequest {
    /// `order.addItem`: `{id, pizza}` as before, or `{id, item}` with a pizza or a product (`{product, quantity?,
    /// options?, note?}`).
    public static func addItem(_ params: Params, factory: PizzaFactory) throws -> ChangeRequest {
        try params.onlyKnown(["id", "pizza", "item"])
        let id = try params.requiredInt("id")
        if let item = params["item"] {
            if item["product"] != nil {
                return .addProduct(try factory.product(fromWire: item, path: "item."), order: id)
            }
            return .addItem(try factory.pizza(fromWire: item, path: "item."), order: id)
        }
        guard let pizza = params["pizza"] else {
            throw RPCError.invalidParams("item", "item (or pizza) is required", expected: "object")
        }
        return .addItem(try factory.pizza(fromWire: pizza, path: "pizza."), order: id)
    }

    /// `order.setFulfilment {id, fulfilment}` (the body of `PUT /v1/orders/{id}/fulfilment` is the fulfilment).
    public static func setFulfilment(order id: Int64, _ value: JSONValue?, factory: PizzaFactory) throws
        -> ChangeRequest
    {
        guard let value else {
            throw RPCError.invalidParams(
                "fulfilment", "fulfilment is required", expected: "{type, phone?, address?, table?, dueAt?}")
        }
        return .setFulfilment(try fulfilment(value), deliveryFee: factory.menu.deliveryFee, order: id)
    }

    /// `order.discount {id, amount | percent, item?, reason}`.
    public static func discount(order id: Int64, _ params: Params) throws -> ChangeRequest {
        let amount = try params.int("amount")
        let percent = try params.int("percent")
        let size: Cart.DiscountSize
        switch (amount, percent) {
        case (let amount?, nil): size = .amount(amount)
        case (nil, let percent?):
            // A percent beyond Int's range is out of 1...100 all the same.
            size = .percent(Int(clamping: percent))
        default:
            throw RPCError.validation(
                "amount", "a discount needs an amount in cents or a percent, not both", allowed: ["amount", "percent"])
        }
        let reason = try shopText(try params.requiredString("reason"), field: "reason", characters: 1...200)
        return .discount(size, item: try params.int("item"), reason: reason, order: id)
    }

    /// `order.pay {id, tender, amount, ref?}`.
    public static func pay(order id: Int64, _ params: Params) throws -> ChangeRequest {
        let name = try params.requiredString("tender")
        guard let tender = Tender(rawValue: name) else {
            throw RPCError.validation(
                "tender", "unknown tender '\(name)'", allowed: Tender.allCases.map(\.rawValue))
        }
        return .pay(tender, amount: try params.requiredInt("amount"), ref: try params.string("ref"), order: id)
    }

    /// `order.refund {id, payment, amount, reason}`.
    public static func refund(order id: Int64, _ params: Params) throws -> ChangeRequest {
        let reason = try shopText(try params.requiredString("reason"), field: "reason", characters: 1...200)
        return .refund(
            payment: try params.requiredInt("payment"), amount: try params.requiredInt("amount"), reason: reason,
            order: id)
    }

    /// A fulfilment from its wire form, its texts checked and normalised (the repository checks what each type
    /// needs).
    static func fulfilment(_ value: JSONValue) throws -> Fulfilment {
        guard case .object(let members) = value else {
            throw RPCError.invalidParams(
                "fulfilment", "fulfilment must be an object", expected: "{type, phone?, address?, table?, dueAt?}")
        }
        let known: Set<String> = ["type", "phone", "address", "table", "dueAt"]
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw RPCError.invalidParams(
                "fulfilment." + unknown.0, "unknown fulfilment field '\(unknown.0)'",
                expected: known.sorted().joined(separator: "|"))
        }
        do {
            var fulfilment = try Fulfilment(wire: value)
            fulfilment.phone = fulfilment.phone.map(ShopText.normalized)
            fulfilment.table = fulfilment.table.map(ShopText.normalized)
            if var address = fulfilment.address {
                address.street = ShopText.normalized(address.street)
                address.city = ShopText.normalized(address.city)
                address.notes = address.notes.map(ShopText.normalized)
                fulfilment.address = address
            }
            return fulfilment
        } catch {
            throw RPCError.validation(
                "fulfilment", error.description,
                allowed: ["{type: pickup|delivery|dinein, phone?, address?, table?, dueAt?}"])
        }
    }
}

extension PizzaFactory {
    /// The fields a product item's wire form may have.
    static let productFields: Set<String> = ["product", "quantity", "options", "note"]

    /// A product line from its wire form `{product, quantity?, options?, note?}`; `path` names it in errors.
    public func product(fromWire value: JSONValue, path: String = "") throws -> Product {
        guard case .object(let members) = value else {
            throw RPCError.invalidParams(
                String(path.dropLast()), "an item must be an object, not \(value.typeName)", expected: "object")
        }
        if let unknown = members.first(where: { !Self.productFields.contains($0.0) }) {
            throw RPCError.invalidParams(
                path + unknown.0, "unknown product item field '\(unknown.0)'",
                expected: Self.productFields.sorted().joined(separator: "|"))
        }
        let params = Params(members)
        let id = try params.requiredString("product")
        let quantity = try params.int("quantity") ?? 1
        var options: [String] = []
        for option in try params.array("options") ?? [] {
            guard let name = option.stringValue else {
                throw RPCError.invalidParams(path + "options", "options must be strings", expected: "array of strings")
            }
            options.append(name)
        }
        var note: String?
        if let text = try params.string("note") {
            let limit = Cart.noteBytes
            if let refusal = ShopText.refusal(text, field: path + "note", characters: 1...limit, bytes: limit) {
                throw RPCError(refusal)
            }
            note = ShopText.normalized(text)
        }
        do {
            return try self.product(id, quantity: Int(clamping: quantity), options: options, note: note)
        } catch {
            throw RPCError(error, path: path)
        }
    }
}
