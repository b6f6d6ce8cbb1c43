import PizzaCore
import PizzaStorage
import PizzaTesting
import Testing

/// The writer keeps the orders as the last changes wrote them, so that the next change to one starts from there
/// instead of reading its rows back. In debug builds (every test) each kept order is checked against its rows; these
/// are the cases where the rows may say something else, and the writer must read them.
@Suite("The writer's kept orders")
struct KeptOrdersTests {
    @Test("an order edited with sqlite3 between two changes: the next change starts from the edit")
    func editedByAnotherProgram() async throws {
        let kitchen = try Kitchen()
        let order = try await kitchen.newOrder()
        #expect(
            try Fixtures.sqlite3(kitchen.path, "UPDATE carts SET customer = 'by hand' WHERE id = \(order.id)") == "")
        let placed = try await kitchen.repository.place(order.id, by: Fixtures.actor)
        #expect(placed.cart.customer == "by hand")
        let row = try Fixtures.sqlite3(kitchen.path, "SELECT customer, status FROM carts WHERE id = \(order.id)")
        #expect(row == "by hand|placed")
    }

    @Test("an order edited through the writer's own connection (a maintenance block): the next change starts from it")
    func editedInMaintenance() async throws {
        let kitchen = try Kitchen()
        let order = try await kitchen.newOrder()
        let edit = "UPDATE carts SET customer = 'by hand' WHERE id = \(order.id)"
        try await kitchen.store.withWriter { db in try db.execute(edit) }
        let placed = try await kitchen.repository.place(order.id, by: Fixtures.actor)
        #expect(placed.cart.customer == "by hand")
    }

    @Test("a change refused after its rows were written: the next change to that order starts from the rows")
    func refusedAfterItsRows() async throws {
        let kitchen = try Kitchen()
        let order = try await kitchen.newOrder()
        // Registered after the persistence layer: the placing's rows are written (and it is kept), then refused.
        let refusing = RefusingSubscriber<WriteTransaction>()
        kitchen.repository.writers += refusing
        await #expect(throws: RefusingSubscriber<WriteTransaction>.Refused.self) {
            try await kitchen.repository.place(order.id, by: Fixtures.actor)
        }
        kitchen.repository.writers -= refusing
        // Placed once: from the rows (open), not from what the refused change had written (placed).
        let placed = try await kitchen.repository.place(order.id, by: Fixtures.actor)
        #expect(placed.cart.history.map(\.to) == [.open, .placed])
        #expect(try kitchen.store.verifyAudit().ok)
    }

    @Test("an order changed again and again, in one group commit and across many: every change starts from the last")
    func changedAgainAndAgain() async throws {
        let kitchen = try Kitchen()
        let repository = kitchen.repository
        let orders = try await withThrowingTaskGroup(of: Cart.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await repository.create(
                        customer: "Ann", pizzas: [try Fixtures.factory.makePizza("cheese")], place: true,
                        currency: "EUR", by: Fixtures.actor
                    ).cart
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Each order advanced to delivered, the orders side by side so that group commits hold several.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for order in orders {
                group.addTask {
                    for _ in 0..<5 { _ = try await repository.advance(order.id, by: Fixtures.actor) }
                }
            }
            try await group.waitForAll()
        }
        for order in orders { #expect(try repository.cart(id: order.id).status == .delivered) }
        #expect(try kitchen.store.verifyAudit().ok)
    }
}
