import PizzaCore

// A shop's whole order as `pizzactl order show` prints it (CONTRACT section 17): every line with its VAT rate, how
// it reaches the customer, and the figures.

extension Output {
    /// `Delivery to Hauptstr. 5, 10115 Berlin (ring twice), phone 030 1234567, due 19:30`; nil for a pickup as
    /// soon as possible.
    static func fulfilmentLine(_ fulfilment: Fulfilment) -> String? {
        var parts: [String] = []
        switch fulfilment.type {
        case .pickup: if fulfilment.dueAt != nil { parts.append("Pickup") }
        case .delivery:
            var to = "Delivery"
            if let address = fulfilment.address {
                to += " to " + safe(address.inShort)
                if let notes = address.notes { to += " (\(safe(notes)))" }
            }
            parts.append(to)
            if let phone = fulfilment.phone { parts.append("phone " + safe(phone)) }
        case .dinein: parts.append("Table " + safe(fulfilment.table ?? "?"))
        }
        if let due = fulfilment.dueAt { parts.append("due " + time(due)) }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// The pizzas and products in the order they were added, a row each.
    static func lines(_ order: Cart) -> [[String]] {
        var rows: [(Int64, [String])] = []
        for item in order.items {
            var what = item.pizza.inShort
            if let note = item.pizza.note { what += " (note: \(safe(note)))" }
            rows.append(
                (
                    item.id,
                    [
                        String(item.id), what, String(item.pizza.quantity),
                        money(item.pizza.unitPrice, order.currency), money(item.pizza.price, order.currency),
                        rate(item.pizza.tax),
                    ]
                ))
        }
        for line in order.products {
            var what = safe(line.product.name) + line.product.options.map { " +" + safe($0) }.joined()
            if let note = line.product.note { what += " (note: \(safe(note)))" }
            rows.append(
                (
                    line.id,
                    [
                        String(line.id), what, String(line.product.quantity),
                        money(line.product.unitPrice, order.currency), money(line.product.price, order.currency),
                        rate(line.product.tax),
                    ]
                ))
        }
        return rows.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// `food 7%`.
    static func rate(_ tax: TaxRate) -> String {
        let whole = tax.basisPoints / 100
        let fraction = tax.basisPoints % 100
        return "\(tax.name) \(whole)" + (fraction == 0 ? "" : ".\(fraction < 10 ? "0" : "")\(fraction)") + "%"
    }

    /// Subtotal, discounts and fees when there are any, the total, the VAT per rate when there is any, the
    /// payments, what was paid and what is owed.
    static func figures(_ order: Cart) {
        let currency = order.currency
        if !order.discounts.isEmpty || !order.fees.isEmpty {
            print("Subtotal: \(money(order.subtotal, currency))")
            for discount in order.discounts {
                let what = discount.item.map { "item \($0)" } ?? "order"
                let percent = discount.percent.map { " (\($0)%)" } ?? ""
                print(
                    "Discount \(discount.id) on \(what)\(percent): -\(money(discount.amount, currency)), "
                        + "\(safe(discount.reason)), by \(actor(discount.by))")
            }
            for fee in order.fees { print("Fee (\(safe(fee.kind))): \(money(fee.amount, currency))") }
        }
        print("Total: \(money(order.total, currency))")
        let taxes = order.taxes.filter { $0.rate.basisPoints > 0 }
        if !taxes.isEmpty {
            table(
                ["VAT", "GROSS", "NET", "TAX"],
                taxes.map {
                    [rate($0.rate), money($0.gross, currency), money($0.net, currency), money($0.tax, currency)]
                },
                right: [1, 2, 3])
        }
        guard !order.payments.isEmpty else { return }
        print("Payments:")
        table(
            ["ID", "TENDER", "AMOUNT", "TIME", "BY", "REF / REFUNDS"],
            order.payments.map { payment in
                [
                    String(payment.id), payment.tender.rawValue, money(payment.amount, currency), time(payment.at),
                    actor(payment.by),
                    payment.refunds.map { "refunds \($0): " + safe(payment.reason ?? "") } ?? payment.ref.map(safe)
                        ?? "-",
                ]
            }, right: [0, 2])
        print("Paid: \(money(order.paid, currency)), balance: \(money(order.balance, currency))")
    }

    /// What a whole order's change was, for `pizzactl watch`: `  (card 15.00 EUR)`, `  (discount -1.00 EUR)`,
    /// `  (table 3)`; empty for the other kinds.
    static func whatChanged(_ kind: String, _ order: Cart) -> String {
        switch kind {
        case "paid", "refunded":
            guard let payment = order.payments.last else { return "" }
            return "  (\(payment.tender.rawValue) \(money(payment.amount, order.currency)))"
        case "discounted":
            guard let discount = order.discounts.last else { return "" }
            return "  (discount -\(money(discount.amount, order.currency)))"
        case "fulfilment_changed":
            return "  (" + (fulfilmentLine(order.fulfilment) ?? "pickup") + ")"
        default: return ""
        }
    }
}
