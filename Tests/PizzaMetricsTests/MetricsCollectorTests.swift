import PizzaCore
import PizzaMetrics
import PizzaTesting
import Testing

/// The metrics collector as a repository subscriber, over the in-memory store (the collector hears changes after
/// their commit, whatever the store; over SQLite, through the daemon's /metrics, in PizzaDaemonTests).
@Suite("The metrics collector")
struct MetricsCollectorTests {
    static let actor = ChangeActor(uid: 1000, name: "cook", pid: 4242)

    static func newOrder(_ repository: OrderRepository<InMemoryOrderStore>, place: Bool) async throws -> Cart {
        try await repository.create(
            customer: "Ann", pizzas: [try PizzaFactory().makePizza("cheese")], place: place, currency: "EUR",
            by: actor
        ).cart
    }

    @Test(
        "it counts commits, transitions, statuses, stage times, cancellations and failures by operation and error")
    func counts() async throws {
        let book = InMemoryOrderBook()
        let repository = book.repository
        let backend = PrometheusBackend()
        let metrics = MetricsCollector(counts: try repository.countsByStatus(), factory: backend.factory)
        repository.delegates += metrics
        let cart = try await Self.newOrder(repository, place: true)
        _ = try await repository.advance(cart.id, by: Self.actor)
        _ = try? await repository.advance(cart.id, from: .open, by: Self.actor)
        var text = backend.render()
        #expect(text.contains("pizzad_orders_created_total 1"))
        #expect(text.contains(#"pizzad_order_transitions_total{to="preparing"} 1"#))
        #expect(text.contains(#"pizzad_orders{status="preparing"} 1"#))
        #expect(text.contains(#"pizzad_orders{status="placed"} 0"#))
        #expect(text.contains(#"pizzad_changes_failed_total{operation="order.advance",error="conflict"} 1"#))
        #expect(text.contains(#"pizzad_changes_failed_total{operation="order.advance",error="storage"} 0"#))
        #expect(text.contains("pizzad_commit_duration_seconds_count 2"))
        #expect(text.contains(#"pizzad_order_stage_duration_seconds_count{status="placed"} 1"#), "\(text)")
        #expect(text.contains("pizzad_order_fulfilment_duration_seconds_count 0"))

        // On to delivered: one more sample per stage, and one placed → delivered.
        for _ in 0..<4 { _ = try await repository.advance(cart.id, by: Self.actor) }
        let other = try await Self.newOrder(repository, place: true)
        _ = try await repository.cancel(other.id, reason: "no show", by: Self.actor)
        metrics.groupCommitted(changes: 3, duration: .milliseconds(2))
        text = backend.render()
        for stage in ["placed", "preparing", "baking", "boxed", "shipped"] {
            #expect(text.contains(#"pizzad_order_stage_duration_seconds_count{status="\#(stage)"} 1"#), "\(stage)")
        }
        #expect(text.contains("pizzad_order_fulfilment_duration_seconds_count 1"))
        #expect(text.contains(#"pizzad_orders_cancelled_total{from="placed"} 1"#))
        #expect(text.contains(#"pizzad_orders{status="delivered"} 1"#))
        #expect(text.contains("pizzad_group_commit_changes_count 1"))
        #expect(text.contains("pizzad_group_commit_changes_sum 3"))
        // Every metric says what it means, and each histogram has the buckets chosen for it by name.
        let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
        let helped = text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }
        #expect(types.count == helped.count && !types.isEmpty, "\(text)")
        #expect(
            text.contains(#"pizzad_order_stage_duration_seconds_bucket{status="placed",le="14400.0"} 1"#), "\(text)")
        #expect(text.contains(#"pizzad_group_commit_changes_bucket{le="4.0"} 1"#), "\(text)")
        withExtendedLifetime(book) {}
    }

    @Test("a change that fails before the store is counted under its operation, and every operation starts at 0")
    func failuresByOperation() async throws {
        let book = InMemoryOrderBook()
        let backend = PrometheusBackend()
        let metrics = MetricsCollector(counts: try book.repository.countsByStatus(), factory: backend.factory)
        book.repository.delegates += metrics
        await #expect(throws: OrderError.self) { try await book.repository.place(99, by: Self.actor) }
        let text = backend.render()
        #expect(text.contains(#"pizzad_changes_failed_total{operation="order.place",error="not_found"} 1"#), "\(text)")
        for operation in OrderOperation.changes {
            #expect(text.contains(#"pizzad_changes_failed_total{operation="\#(operation)",error="storage"} 0"#))
        }
    }
}
