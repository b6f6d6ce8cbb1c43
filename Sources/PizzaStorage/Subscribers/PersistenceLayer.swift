public import PizzaCore
import SQLite

/// Writes each change's rows (`carts`, `pizzas`, `order_items`, `status_history`, `discounts`, `fees`, `payments`)
/// inside the change's transaction.
///
/// A repository subscriber: it writes the order's state after the change through the transaction the
/// repository hands it (the store's own write handle, typed), so the tables always hold what the repository acknowledged. ``OrderBook`` owns it.
public final class PersistenceLayer: OrderChangeWriter {
    public init() {}

    public func repository(willCommit change: OrderChange, in transaction: WriteTransaction) throws {
        let db = transaction.db
        let cart = change.after
        // The change's instant as text is made once; the order's times and new history entries are that instant.
        func text(_ instant: Timestamp) -> String { instant == change.at ? change.atText : instant.description }
        if change.before == nil {
            try insertCart(cart, db: db, created: text(cart.createdAt), updated: text(cart.updatedAt))
        } else {
            try db.execute(
                literal: """
                    UPDATE carts SET customer = ?, note = ?, status = ?, total = ?, updated_at = ?, fulfilment = ?,
                        phone = ?, street = ?, postcode = ?, city = ?, address_notes = ?, dine_table = ?, due_at = ?,
                        subtotal = ?, paid = ?, parts = ?
                    WHERE id = ?
                    """
            ) { row in
                row.bind(cart.customer)
                row.bind(cart.note)
                row.bind(cart.status.rawValue)
                row.bind(cart.total)
                row.bind(text(cart.updatedAt))
                Self.bindWhole(cart, to: &row)
                row.bind(cart.id)
            }
        }
        try writeWhole(change, db: db)
        // A new order has only new items: no sets to compare.
        let beforeItems = change.before.map { Set($0.items.map(\.id)) } ?? []
        if !beforeItems.isEmpty {
            let afterItems = Set(cart.items.map(\.id))
            for removed in beforeItems.subtracting(afterItems).sorted() {
                try db.execute(literal: "DELETE FROM pizzas WHERE id = ? AND cart_id = ?", [removed, cart.id])
            }
        }
        // Items and history entries are read where the order keeps them: a `for` loop's copy of each retained and
        // released every string and array in it.
        try cart.items.withUnsafeBufferPointer { items in
            for index in items.indices where !beforeItems.contains(items[index].id) {
                try insertItem(items.baseAddress! + index, cartID: cart.id, db: db)
            }
        }
        let newEntries = (change.before?.history.count ?? 0)..<cart.history.count
        try cart.history.withUnsafeBufferPointer { history in
            for index in newEntries {
                try insertEntry(history.baseAddress! + index, cartID: cart.id, at: text(history[index].at), db: db)
            }
        }
        // The next change to it in this transaction, or in the next while nothing else writes, starts from this.
        transaction.numbers.written(cart)
    }

    /// A new item's `pizzas` row.
    private func insertItem(_ item: UnsafePointer<CartItem>, cartID: Int64, db: Database) throws {
        try db.execute(
            literal: """
                INSERT INTO pizzas (id, cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price,
                                    tax, tax_bp, note)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ) { row in
            row.bind(item.pointee.id)
            row.bind(cartID)
            row.bind(item.pointee.pizza.kind)
            row.bind(item.pointee.pizza.size.rawValue)
            row.bind(item.pointee.pizza.crust)
            row.bind(item.pointee.pizza.chiliSauce)
            row.bind(item.pointee.pizza.ketchup)
            row.bind(item.pointee.pizza.extras.joined(separator: ","))
            row.bind(item.pointee.pizza.quantity)
            row.bind(item.pointee.pizza.unitPrice)
            row.bind(item.pointee.pizza.tax.name)
            row.bind(item.pointee.pizza.tax.basisPoints)
            row.bind(item.pointee.pizza.note)
        }
    }

    /// A new history entry's `status_history` row; `at` is its instant as text.
    private func insertEntry(_ entry: UnsafePointer<StatusChange>, cartID: Int64, at: String, db: Database) throws {
        // A change over the control socket names no device: its row is written as before schema 5.
        let sql: StaticString =
            entry.pointee.actor.device == nil && entry.pointee.actor.address == nil
            ? """
            INSERT INTO status_history (cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
            : """
            INSERT INTO status_history (cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid, reason,
                                        actor_device, actor_address)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        try db.execute(literal: sql) { row in
            row.bind(cartID)
            row.bind(entry.pointee.from?.rawValue)
            row.bind(entry.pointee.to.rawValue)
            row.bind(at)
            row.bind(entry.pointee.actor.uid)
            row.bind(entry.pointee.actor.name)
            row.bind(entry.pointee.actor.pid)
            row.bind(entry.pointee.reason)
            if entry.pointee.actor.device != nil || entry.pointee.actor.address != nil {
                row.bind(entry.pointee.actor.device)
                row.bind(entry.pointee.actor.address)
            }
        }
    }

    /// The new order's `carts` row; another order with its ref is ``RefInUse`` (the repository then looks it up).
    private func insertCart(_ cart: Cart, db: Database, created: String, updated: String) throws {
        do {
            try db.execute(
                literal: """
                    INSERT INTO carts (id, ref, customer, note, status, currency, total, created_at, updated_at,
                                       fulfilment, phone, street, postcode, city, address_notes, dine_table, due_at,
                                       subtotal, paid, parts)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ) { row in
                row.bind(cart.id)
                row.bind(cart.ref)
                row.bind(cart.customer)
                row.bind(cart.note)
                row.bind(cart.status.rawValue)
                row.bind(cart.currency)
                row.bind(cart.total)
                row.bind(created)
                row.bind(updated)
                Self.bindWhole(cart, to: &row)
            }
        } catch {
            guard let ref = cart.ref, error.isUniqueConstraint, error.message.contains("carts.ref") else { throw error }
            throw RefInUse(ref: ref)
        }
    }
}
