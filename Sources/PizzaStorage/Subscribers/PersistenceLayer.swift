public import PizzaCore
import SQLite

/// Writes each change's rows (`carts`, `pizzas`, `status_history`) inside the change's transaction.
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
                literal: "UPDATE carts SET customer = ?, note = ?, status = ?, total = ?, updated_at = ? WHERE id = ?"
            ) { row in
                row.bind(cart.customer)
                row.bind(cart.note)
                row.bind(cart.status.rawValue)
                row.bind(cart.total)
                row.bind(text(cart.updatedAt))
                row.bind(cart.id)
            }
        }
        // A new order has only new items: no sets to compare.
        let beforeItems = change.before.map { Set($0.items.map(\.id)) } ?? []
        if !beforeItems.isEmpty {
            let afterItems = Set(cart.items.map(\.id))
            for removed in beforeItems.subtracting(afterItems).sorted() {
                try db.execute(literal: "DELETE FROM pizzas WHERE id = ? AND cart_id = ?", [removed, cart.id])
            }
        }
        for item in cart.items where !beforeItems.contains(item.id) {
            let pizza = item.pizza
            try db.execute(
                literal: """
                    INSERT INTO pizzas (id, cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ) { row in
                row.bind(item.id)
                row.bind(cart.id)
                row.bind(pizza.kind)
                row.bind(pizza.size.rawValue)
                row.bind(pizza.crust)
                row.bind(pizza.chiliSauce)
                row.bind(pizza.ketchup)
                row.bind(pizza.extras.joined(separator: ","))
                row.bind(pizza.quantity)
                row.bind(pizza.unitPrice)
            }
        }
        for entry in cart.history.dropFirst(change.before?.history.count ?? 0) {
            // A change over the control socket names no device: its row is written as before schema 5.
            let sql: StaticString =
                entry.actor.device == nil && entry.actor.address == nil
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
                row.bind(cart.id)
                row.bind(entry.from?.rawValue)
                row.bind(entry.to.rawValue)
                row.bind(text(entry.at))
                row.bind(entry.actor.uid)
                row.bind(entry.actor.name)
                row.bind(entry.actor.pid)
                row.bind(entry.reason)
                if entry.actor.device != nil || entry.actor.address != nil {
                    row.bind(entry.actor.device)
                    row.bind(entry.actor.address)
                }
            }
        }
    }

    /// The new order's `carts` row; another order with its ref is ``RefInUse`` (the repository then looks it up).
    private func insertCart(_ cart: Cart, db: Database, created: String, updated: String) throws {
        do {
            try db.execute(
                literal: """
                    INSERT INTO carts (id, ref, customer, note, status, currency, total, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
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
            }
        } catch {
            guard let ref = cart.ref, error.isUniqueConstraint, error.message.contains("carts.ref") else { throw error }
            throw RefInUse(ref: ref)
        }
    }
}
