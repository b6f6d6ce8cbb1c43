import PizzaCore
import SQLite

/// The rows of a shop's whole order (CONTRACT section 17) beside the pizzas: product lines, discounts, fees,
/// payments, and the fulfilment and figure columns of `carts`.
extension PersistenceLayer {
    /// The fulfilment and figure columns of `carts`, in the order both of its statements name them.
    static func bindWhole(_ cart: Cart, to row: inout Bindings) {
        let fulfilment = cart.fulfilment
        row.bind(fulfilment.type.rawValue)
        row.bind(fulfilment.phone)
        row.bind(fulfilment.address?.street)
        row.bind(fulfilment.address?.postcode)
        row.bind(fulfilment.address?.city)
        row.bind(fulfilment.address?.notes)
        row.bind(fulfilment.table)
        row.bind(fulfilment.dueAt?.description)
        row.bind(cart.subtotal)
        row.bind(cart.paid)
        var parts: Int64 = 0
        if !cart.products.isEmpty { parts |= 1 }
        if !cart.discounts.isEmpty { parts |= 2 }
        if !cart.fees.isEmpty { parts |= 4 }
        if !cart.payments.isEmpty { parts |= 8 }
        row.bind(parts)
    }

    /// The product lines, discounts, fees and payments that changed: a pizza-only change compares four empty arrays.
    func writeWhole(_ change: OrderChange, db: Database) throws {
        let cart = change.after
        let before = change.before
        if cart.products != (before?.products ?? []) {
            try writeProducts(cart, before: before?.products ?? [], db: db)
        }
        if cart.discounts != (before?.discounts ?? []) {
            // A new order has no rows to replace.
            if before != nil { try db.execute(literal: "DELETE FROM discounts WHERE cart_id = ?", [cart.id]) }
            for discount in cart.discounts { try insertDiscount(discount, cartID: cart.id, db: db) }
        }
        if cart.fees != (before?.fees ?? []) {
            if before != nil { try db.execute(literal: "DELETE FROM fees WHERE cart_id = ?", [cart.id]) }
            for fee in cart.fees {
                try db.execute(
                    literal: "INSERT INTO fees (cart_id, kind, amount, tax, tax_bp) VALUES (?, ?, ?, ?, ?)",
                    [cart.id, fee.kind, fee.amount, fee.tax.name, fee.tax.basisPoints])
            }
        }
        // Payments are only ever added.
        let known = before?.payments.count ?? 0
        if cart.payments.count > known {
            for payment in cart.payments[known...] { try insertPayment(payment, cartID: cart.id, db: db) }
        }
    }

    /// The product lines that are new since `before` inserted, those no longer there deleted.
    private func writeProducts(_ cart: Cart, before: [CartProduct], db: Database) throws {
        let after = Set(cart.products.map(\.id))
        for removed in before where !after.contains(removed.id) {
            try db.execute(literal: "DELETE FROM order_items WHERE id = ? AND cart_id = ?", [removed.id, cart.id])
        }
        let known = Set(before.map(\.id))
        for line in cart.products where !known.contains(line.id) {
            try db.execute(
                literal: """
                    INSERT INTO order_items (id, cart_id, product, name, category, quantity, options, unit_price, tax,
                                             tax_bp, note)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ) { row in
                row.bind(line.id)
                row.bind(cart.id)
                row.bind(line.product.product)
                row.bind(line.product.name)
                row.bind(line.product.category)
                row.bind(line.product.quantity)
                row.bind(line.product.options.joined(separator: ","))
                row.bind(line.product.unitPrice)
                row.bind(line.product.tax.name)
                row.bind(line.product.tax.basisPoints)
                row.bind(line.product.note)
            }
        }
    }

    private func insertDiscount(_ discount: Discount, cartID: Int64, db: Database) throws {
        try db.execute(
            literal: """
                INSERT INTO discounts (id, cart_id, amount, percent, item_id, reason, at, actor_uid, actor_name,
                                       actor_pid, actor_device, actor_address)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ) { row in
            row.bind(discount.id)
            row.bind(cartID)
            row.bind(discount.amount)
            row.bind(discount.percent.map(Int64.init))
            row.bind(discount.item)
            row.bind(discount.reason)
            row.bind(discount.at.description)
            row.bind(discount.by.uid)
            row.bind(discount.by.name)
            row.bind(discount.by.pid)
            row.bind(discount.by.device)
            row.bind(discount.by.address)
        }
    }

    private func insertPayment(_ payment: Payment, cartID: Int64, db: Database) throws {
        try db.execute(
            literal: """
                INSERT INTO payments (id, cart_id, tender, amount, at, ref, refunds, reason, actor_uid, actor_name,
                                      actor_pid, actor_device, actor_address)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ) { row in
            row.bind(payment.id)
            row.bind(cartID)
            row.bind(payment.tender.rawValue)
            row.bind(payment.amount)
            row.bind(payment.at.description)
            row.bind(payment.ref)
            row.bind(payment.refunds)
            row.bind(payment.reason)
            row.bind(payment.by.uid)
            row.bind(payment.by.name)
            row.bind(payment.by.pid)
            row.bind(payment.by.device)
            row.bind(payment.by.address)
        }
    }
}
