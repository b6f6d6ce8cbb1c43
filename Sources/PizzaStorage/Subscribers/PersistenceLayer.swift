public import PizzaCore
import SQLite

/// Writes each change's rows (`carts`, `pizzas`, `status_history`) inside the change's transaction.
///
/// A repository subscriber: it writes the order's state after the change through the transaction the
/// repository hands it, so the tables always hold what the repository acknowledged. ``OrderBook`` owns it.
public final class PersistenceLayer: OrderRepositoryDelegate {
    public init() {}

    public func repository(willCommit change: OrderChange, in transaction: any OrderTransaction) throws {
        let db = WriteTransaction(transaction).db
        let cart = change.after
        // The change's instant as text is made once; the order's times and new history entries are that instant.
        func text(_ instant: Timestamp) -> String { instant == change.at ? change.atText : instant.description }
        if change.before == nil {
            try db.execute(
                literal: """
                    INSERT INTO carts (id, ref, customer, note, status, currency, total, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                [
                    cart.id, cart.ref, cart.customer, cart.note, cart.status.rawValue, cart.currency, cart.total,
                    text(cart.createdAt), text(cart.updatedAt),
                ])
        } else {
            try db.execute(
                literal: "UPDATE carts SET customer = ?, note = ?, status = ?, total = ?, updated_at = ? WHERE id = ?",
                [cart.customer, cart.note, cart.status.rawValue, cart.total, text(cart.updatedAt), cart.id])
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
                    """,
                [
                    item.id, cart.id, pizza.kind, pizza.size.rawValue, pizza.crust, pizza.chiliSauce, pizza.ketchup,
                    pizza.extras.joined(separator: ","), pizza.quantity, pizza.unitPrice,
                ])
        }
        for entry in cart.history.dropFirst(change.before?.history.count ?? 0) {
            try db.execute(
                literal: """
                    INSERT INTO status_history (cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid, reason)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                [
                    cart.id, entry.from?.rawValue, entry.to.rawValue, text(entry.at), Int64(entry.actor.uid),
                    entry.actor.name, entry.actor.pid, entry.reason,
                ])
        }
    }
}
