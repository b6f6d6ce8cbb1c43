public import PizzaCore

extension Cart {
    /// The order as the socket sends it (CONTRACT section 4), as JSON text put into a response as it is.
    public var wire: JSONValue { .encoded(wireText) }

    /// The order's wire form as compact JSON text: what `order.get` answers, the audit entry stores and every
    /// event carries. Written straight to bytes, member by member, with no value tree in between.
    public var wireText: String { wireText(knowing: nil) }

    /// ``wireText``, copying `instant`'s known text where the order has that instant (its times and history entries
    /// at a change's instant) instead of formatting it again.
    func wireText(knowing instant: (Timestamp, String)?) -> String {
        // About what the text takes (a two-pizza pickup placed at once: 979 bytes with its fulfilment, figures and
        // rates), so that the buffer is one allocation glibc serves from its per-thread cache (up to 1,032 bytes)
        // instead of its slower bins; a longer text (products, a delivery's address, payments) grows it.
        var freeText = (ref?.utf8.count ?? 0) + (customer?.utf8.count ?? 0) + (note?.utf8.count ?? 0)
        if fulfilment != .pickup || !discounts.isEmpty || !fees.isEmpty || !payments.isEmpty { freeText += 256 }
        var writer = JSONWriter(
            capacity: 300 + items.count * 210 + products.count * 240 + history.count * 144 + freeText)
        if let (at, text) = instant { writer.knowing(at, as: text) }
        writeWire(to: &writer)
        return writer.text
    }

    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("id", id)
        w.member("ref", ref)
        w.member("customer", customer)
        w.member("note", note)
        w.member("status", status.rawValue)
        w.key("fulfilment")
        fulfilment.writeWire(to: &w)
        w.key("items")
        if products.isEmpty {
            w.array(items) { w, item in item.writeWire(to: &w) }
        } else {
            writeLines(to: &w)
        }
        writeFigures(to: &w)
        w.member("currency", currency)
        w.member("createdAt", createdAt)
        w.member("updatedAt", updatedAt)
        w.key("history")
        w.array(history) { w, change in change.writeWire(to: &w) }
        w.close()
    }
}

extension CartItem {
    /// The item as the socket sends it: the pizza fields plus `id`, `unitPrice` and `price`.
    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("id", id)
        w.member("kind", pizza.kind)
        w.member("size", pizza.size.rawValue)
        w.member("crust", pizza.crust)
        w.member("chiliSauce", pizza.chiliSauce)
        w.member("ketchup", pizza.ketchup)
        w.key("extras")
        w.array(pizza.extras) { w, extra in w.string(extra) }
        w.member("quantity", Int64(pizza.quantity))
        if let note = pizza.note { w.member("note", note) }
        w.member("unitPrice", pizza.unitPrice)
        w.member("price", pizza.price)
        w.member("tax", pizza.tax.name)
        w.member("basisPoints", pizza.tax.basisPoints)
        w.close()
    }
}

extension StatusChange {
    /// The history entry as the socket sends it.
    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("from", from?.rawValue)
        w.member("to", to.rawValue)
        w.member("at", at)
        w.key("actor")
        actor.writeWire(to: &w)
        w.member("reason", reason)
        w.close()
    }
}

extension ChangeActor {
    /// `{uid, name, pid}`, and `device` and `address` for a change over the order API.
    public var wire: JSONValue {
        var writer = JSONWriter(capacity: 64)
        writeWire(to: &writer)
        return .encoded(writer.text)
    }

    func writeWire(to w: inout JSONWriter) {
        w.open()
        w.member("uid", Int64(uid))
        w.member("name", name)
        w.member("pid", Int64(pid))
        if let device { w.member("device", device) }
        if let address { w.member("address", address) }
        w.close()
    }
}

// MARK: Reading the wire form back

/// An order's JSON that does not hold an order (a damaged or foreign audit entry).
public struct WireFormError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(description: String) { self.description = description }
}

extension Cart {
    /// The order from its wire form (``wire``), as audit entries store it. Also reads the form audit entries had
    /// before pizzad 0.2 (each item `{id, pizza: {…}}`, no `total`), so old entries read like new ones.
    public init(wire value: JSONValue) throws(WireFormError) {
        func field<T>(_ name: String, _ read: (JSONValue) -> T?) throws(WireFormError) -> T {
            guard let member = value[name], let result = read(member) else {
                throw WireFormError(description: "an order's '\(name)' is missing or of the wrong type")
            }
            return result
        }
        func timestamp(_ name: String) throws(WireFormError) -> Timestamp {
            try field(name) { $0.stringValue.flatMap(Timestamp.init(iso8601:)) }
        }
        var items: [CartItem] = []
        // A damaged or foreign copy may hold any numbers: the lines must add up to a total that fits, or every
        // reading of this order's total would trap.
        var total: Int64 = 0
        for item in try field("items", \.arrayValue) where item["product"] == nil {
            let item = try CartItem(wire: item)
            let (sum, overflow) = total.addingReportingOverflow(item.pizza.price)
            guard !overflow else {
                throw WireFormError(description: "the order's items add up to more than a total holds")
            }
            total = sum
            items.append(item)
        }
        var history: [StatusChange] = []
        for change in try field("history", \.arrayValue) { history.append(try StatusChange(wire: change)) }
        self.init(
            id: try field("id", \.intValue), ref: value["ref"]?.stringValue, customer: value["customer"]?.stringValue,
            note: value["note"]?.stringValue, status: try field("status") { $0.stringValue.flatMap(OrderStatus.init) },
            items: [], currency: try field("currency", \.stringValue), createdAt: try timestamp("createdAt"),
            updatedAt: try timestamp("updatedAt"), history: history)
        try readWhole(value, pizzas: items)
    }
}

extension CartItem {
    /// The item from its wire form: the pizza's fields beside `id` (or, in the old audit form, under `pizza`).
    public init(wire value: JSONValue) throws(WireFormError) {
        let pizza = value["pizza"] ?? value
        guard let id = value["id"]?.intValue, let kind = pizza["kind"]?.stringValue,
            let size = pizza["size"]?.stringValue.flatMap(Size.init(rawValue:)),
            let crust = pizza["crust"]?.stringValue, let chili = pizza["chiliSauce"]?.boolValue,
            let ketchup = pizza["ketchup"]?.boolValue, let extras = pizza["extras"]?.arrayValue,
            let quantity = pizza["quantity"]?.intValue, let unitPrice = pizza["unitPrice"]?.intValue
        else { throw WireFormError(description: "an order item is missing a field or has one of the wrong type") }
        // Bounded as the builder bounds them, so that the line's price (unit price times quantity) fits.
        guard PizzaBuilder.quantityRange.contains(Int(quantity)) else {
            throw WireFormError(
                description: "an order item's quantity \(quantity) is outside \(PizzaBuilder.quantityRange)")
        }
        guard (0...Pizza.maximumUnitPrice).contains(unitPrice) else {
            throw WireFormError(description: "an order item's unitPrice \(unitPrice) is not a price")
        }
        let tax = TaxRate(
            name: pizza["tax"]?.stringValue ?? TaxRate.none.name, basisPoints: pizza["basisPoints"]?.intValue ?? 0)
        guard (0...TaxRate.maximumBasisPoints).contains(tax.basisPoints) else {
            throw WireFormError(description: "an order item's basisPoints \(tax.basisPoints) is not a rate")
        }
        self.init(
            id: id,
            pizza: Pizza(
                kind: kind, size: size, crust: crust, chiliSauce: chili, ketchup: ketchup,
                extras: extras.compactMap(\.stringValue), quantity: Int(quantity), unitPrice: unitPrice, tax: tax,
                note: pizza["note"]?.stringValue))
    }
}

extension StatusChange {
    init(wire value: JSONValue) throws(WireFormError) {
        guard let to = value["to"]?.stringValue.flatMap(OrderStatus.init(rawValue:)),
            let at = value["at"]?.stringValue.flatMap(Timestamp.init(iso8601:)), let actor = value["actor"],
            let uid = actor["uid"]?.intValue, let name = actor["name"]?.stringValue, let pid = actor["pid"]?.intValue
        else { throw WireFormError(description: "a history entry is missing a field or has one of the wrong type") }
        self.init(
            from: value["from"]?.stringValue.flatMap(OrderStatus.init(rawValue:)), to: to, at: at,
            actor: ChangeActor(
                uid: UInt32(truncatingIfNeeded: uid), name: name, pid: Int32(truncatingIfNeeded: pid),
                device: actor["device"]?.stringValue, address: actor["address"]?.stringValue),
            reason: value["reason"]?.stringValue)
    }
}

extension OrderChange {
    /// The order after the change in its wire form, as JSON text: what the audit entry stores, every watcher's
    /// event carries and the caller is answered, encoded once per change.
    public var afterWireText: String { afterText.get { after.wireText(knowing: (at, atText)) } }
}

extension OrderOutcome {
    /// The order as the socket sends it: the change's wire text when there was a change (encoded once, for the
    /// audit entry, inside the transaction), else the order encoded now.
    public var wire: JSONValue { .encoded(change?.afterWireText ?? cart.wireText) }
}
