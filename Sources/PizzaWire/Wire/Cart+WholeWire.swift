public import PizzaCore

// The wire form of a shop's whole order (CONTRACT section 17): product lines among the items, the fulfilment, the
// figures (subtotal, discounts, fees, total, taxes, payments, paid, balance). An order written before reads as a
// pickup with no payments, its pizzas at the rate `none`.

extension Cart {
    /// The items, pizzas and products together in the order they were added (their ids).
    func writeLines(to w: inout JSONWriter) {
        var pizzas = items[...]
        var lines = products[...]
        w.array(0..<(items.count + products.count)) { w, _ in
            if let pizza = pizzas.first, lines.first.map({ pizza.id < $0.id }) ?? true {
                pizza.writeWire(to: &w)
                pizzas = pizzas.dropFirst()
            } else if let line = lines.first {
                line.writeWire(to: &w)
                lines = lines.dropFirst()
            }
        }
    }

    /// subtotal, discounts, fees, total, taxes, payments, paid and balance.
    func writeFigures(to w: inout JSONWriter) {
        // Each figure once: `balance` is total - paid, and `total` adds the lines up again.
        let total = self.total
        let paid = self.paid
        let (balance, overflow) = total.subtractingReportingOverflow(paid)
        w.member("subtotal", subtotal)
        w.key("discounts")
        w.array(discounts) { w, discount in discount.writeWire(to: &w) }
        w.key("fees")
        w.array(fees) { w, fee in fee.writeWire(to: &w) }
        w.member("total", total)
        w.key("taxes")
        w.array(taxes) { w, line in line.writeWire(to: &w) }
        w.key("payments")
        w.array(payments) { w, payment in payment.writeWire(to: &w) }
        w.member("paid", paid)
        w.member("balance", overflow ? .min : balance)
    }

    /// The whole order's parts from an order's wire form, beside its `pizzas` (read by the caller).
    mutating func readWhole(_ value: JSONValue, pizzas: [CartItem]) throws(WireFormError) {
        items = pizzas
        for item in value["items"]?.arrayValue ?? [] where item["product"] != nil {
            products.append(try CartProduct(wire: item))
        }
        if let fulfilment = value["fulfilment"], fulfilment != .null {
            self.fulfilment = try Fulfilment(wire: fulfilment)
        }
        for discount in value["discounts"]?.arrayValue ?? [] {
            guard let id = discount["id"]?.intValue, let amount = discount["amount"]?.intValue,
                let reason = discount["reason"]?.stringValue, let by = discount["by"],
                let at = discount["at"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
                (1...Money.maximumAmount).contains(amount)
            else { throw WireFormError(description: "a discount is missing a field or has one of the wrong type") }
            discounts.append(
                Discount(
                    id: id, amount: amount, percent: discount["percent"]?.intValue.map { Int($0) },
                    item: discount["item"]?.intValue, reason: reason, by: try ChangeActor(wireActor: by), at: at))
        }
        for fee in value["fees"]?.arrayValue ?? [] {
            guard let kind = fee["kind"]?.stringValue, let amount = fee["amount"]?.intValue,
                let tax = fee["tax"]?.stringValue, let bp = fee["basisPoints"]?.intValue,
                (0...Money.maximumAmount).contains(amount), (0...TaxRate.maximumBasisPoints).contains(bp)
            else { throw WireFormError(description: "a fee is missing a field or has one of the wrong type") }
            fees.append(Fee(kind: kind, amount: amount, tax: TaxRate(name: tax, basisPoints: bp)))
        }
        for payment in value["payments"]?.arrayValue ?? [] {
            guard let id = payment["id"]?.intValue,
                let tender = payment["tender"]?.stringValue.flatMap(Tender.init(rawValue:)),
                let amount = payment["amount"]?.intValue, amount != 0, amount.magnitude <= Money.maximumAmount,
                let at = payment["at"]?.stringValue.flatMap(Timestamp.init(iso8601:)), let by = payment["by"]
            else { throw WireFormError(description: "a payment is missing a field or has one of the wrong type") }
            payments.append(
                Payment(
                    id: id, tender: tender, amount: amount, at: at, by: try ChangeActor(wireActor: by),
                    ref: payment["ref"]?.stringValue, refunds: payment["refunds"]?.intValue,
                    reason: payment["reason"]?.stringValue))
        }
        // The figures must add up without overflow, or every reading of this order would trap.
        let amounts =
            items.map(\.pizza.price) + products.map(\.product.price) + discounts.map(\.amount) + fees.map(\.amount)
            + payments.map { Int64($0.amount.magnitude) }
        guard Money.sum(amounts) != nil else {
            throw WireFormError(description: "the order's figures add up to more than a total holds")
        }
    }
}

extension CartProduct {
    /// `{id, product, name, category, quantity, options, note?, unitPrice, price, tax, basisPoints}`.
    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("id", id)
        w.member("product", product.product)
        w.member("name", product.name)
        w.member("category", product.category)
        w.member("quantity", Int64(product.quantity))
        w.key("options")
        w.array(product.options) { w, option in w.string(option) }
        if let note = product.note { w.member("note", note) }
        w.member("unitPrice", product.unitPrice)
        w.member("price", product.price)
        w.member("tax", product.tax.name)
        w.member("basisPoints", product.tax.basisPoints)
        w.close()
    }

    /// A product line from its wire form.
    init(wire value: JSONValue) throws(WireFormError) {
        guard let id = value["id"]?.intValue, let product = value["product"]?.stringValue,
            let quantity = value["quantity"]?.intValue, Product.quantityRange.contains(Int(quantity)),
            let unitPrice = value["unitPrice"]?.intValue, (0...Pizza.maximumUnitPrice).contains(unitPrice),
            let tax = value["tax"]?.stringValue, let bp = value["basisPoints"]?.intValue,
            (0...TaxRate.maximumBasisPoints).contains(bp)
        else { throw WireFormError(description: "a product item is missing a field or has one of the wrong type") }
        self.init(
            id: id,
            product: Product(
                product: product, name: value["name"]?.stringValue ?? product,
                category: value["category"]?.stringValue ?? "", quantity: Int(quantity),
                options: (value["options"]?.arrayValue ?? []).compactMap(\.stringValue), unitPrice: unitPrice,
                tax: TaxRate(name: tax, basisPoints: bp), note: value["note"]?.stringValue))
    }
}

extension Fulfilment {
    /// `{type, phone?, address?, table?, dueAt?}`, absent members left out.
    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("type", type.rawValue)
        if let phone { w.member("phone", phone) }
        if let address {
            w.key("address")
            w.open()
            w.member("street", address.street)
            w.member("postcode", address.postcode)
            w.member("city", address.city)
            if let notes = address.notes { w.member("notes", notes) }
            w.close()
        }
        if let table { w.member("table", table) }
        if let dueAt { w.member("dueAt", dueAt) }
        w.close()
    }

    /// A fulfilment from its wire form (as a client sends it, or an order carries it); not checked here.
    public init(wire value: JSONValue) throws(WireFormError) {
        guard let type = value["type"]?.stringValue.flatMap(Kind.init(rawValue:)) else {
            throw WireFormError(description: "fulfilment.type must be one of pickup, delivery, dinein")
        }
        var address: Address?
        if let given = value["address"], given != .null {
            guard let street = given["street"]?.stringValue, let postcode = given["postcode"]?.stringValue,
                let city = given["city"]?.stringValue
            else { throw WireFormError(description: "fulfilment.address needs street, postcode and city as text") }
            address = Address(street: street, postcode: postcode, city: city, notes: given["notes"]?.stringValue)
        }
        var dueAt: Timestamp?
        if let due = value["dueAt"], due != .null {
            guard let instant = due.stringValue.flatMap(Timestamp.init(iso8601:)) else {
                throw WireFormError(description: "fulfilment.dueAt must be a UTC time (2026-12-06T19:30:00Z)")
            }
            dueAt = instant
        }
        self.init(
            type: type, phone: value["phone"]?.stringValue, address: address, table: value["table"]?.stringValue,
            dueAt: dueAt)
    }
}

extension Discount {
    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("id", id)
        w.member("amount", amount)
        if let percent { w.member("percent", Int64(percent)) }
        if let item { w.member("item", item) }
        w.member("reason", reason)
        w.key("by")
        by.writeWire(to: &w)
        w.member("at", at)
        w.close()
    }
}

extension Fee {
    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("kind", kind)
        w.member("amount", amount)
        w.member("tax", tax.name)
        w.member("basisPoints", tax.basisPoints)
        w.close()
    }
}

extension Payment {
    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("id", id)
        w.member("tender", tender.rawValue)
        w.member("amount", amount)
        w.member("at", at)
        w.key("by")
        by.writeWire(to: &w)
        if let ref { w.member("ref", ref) }
        if let refunds { w.member("refunds", refunds) }
        if let reason { w.member("reason", reason) }
        w.close()
    }
}

extension TaxLine {
    /// `{rate, basisPoints, gross, net, tax}`.
    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("rate", rate.name)
        w.member("basisPoints", rate.basisPoints)
        w.member("gross", gross)
        w.member("net", net)
        w.member("tax", tax)
        w.close()
    }
}

extension ChangeActor {
    /// An actor from its wire form `{uid, name, pid, device?, address?}`.
    init(wireActor actor: JSONValue) throws(WireFormError) {
        guard let uid = actor["uid"]?.intValue, let name = actor["name"]?.stringValue, let pid = actor["pid"]?.intValue
        else { throw WireFormError(description: "an actor is missing uid, name or pid") }
        self.init(
            uid: UInt32(truncatingIfNeeded: uid), name: name, pid: Int32(truncatingIfNeeded: pid),
            device: actor["device"]?.stringValue, address: actor["address"]?.stringValue)
    }
}
