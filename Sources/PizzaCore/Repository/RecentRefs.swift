/// The client references (`ref`) of the orders created most recently, with their ids, and for the newest of them
/// the order itself as it is now: a till's retry of an order it already placed is answered without waiting for a
/// group commit and writing nothing, from memory when the order is among the newest, else from the read pool by id.
///
/// Only refs whose order is committed are here (they are added after the durable commit), so an id found is an order
/// that exists. A ref not found may still exist (older than the last `capacity`): the write transaction's own lookup
/// answers that one, as it answers every new ref. So this never decides that a ref is new, only that it is known.
///
/// The orders kept are replaced by every later change to them, after its durable commit and in commit order (the
/// repository calls ``committed(_:created:)`` for every change), so a retry answered from memory gets what the
/// database holds. Only the newest `ordersCapacity` are kept: 128 orders are hours of a shop's day, and a few
/// milliseconds at the daemon's full rate, where keeping 1,024 (50 ms) cost more than the reads it saved: each kept
/// order is about a kilobyte in a dozen blocks, freed cold from the cache when it is pushed out. A retry of an older
/// order reads it by id (the last `capacity` refs), or looks its ref up in the write transaction.
@usableFromInline
final class RecentRefs: Sendable {
    /// The last `capacity` refs with a value each, the oldest forgotten first.
    private struct Newest<Value> {
        let capacity: Int
        var values: [String: Value] = [:]
        /// The refs in the order they were added, overwritten from the oldest once full.
        var ring: [String] = []
        var next = 0

        mutating func add(_ ref: String, _ value: Value) {
            guard capacity > 0 else { return }
            if ring.count < capacity {
                ring.append(ref)
            } else {
                values[ring[next]] = nil
                ring[next] = ref
                next = (next + 1) % capacity
            }
            values[ref] = value
        }
    }

    private struct State {
        var ids: Newest<Int64>
        /// The newest refs' orders, as they are now.
        var orders: Newest<Cart>
    }

    private let state: Locked<State>

    @usableFromInline
    init(capacity: Int = 16_384, ordersCapacity: Int = 128) {
        precondition(capacity > 0, "RecentRefs needs room for at least one ref")
        let kept = min(max(ordersCapacity, 0), capacity)
        state = Locked(State(ids: Newest(capacity: capacity), orders: Newest(capacity: kept)))
    }

    /// The id of the order created with `ref`, if it is among the recent ones.
    @usableFromInline
    func id(of ref: String) -> Int64? { state.withLock { $0.ids.values[ref] } }

    /// The order created with `ref` as it is now, if it is among the newest.
    @usableFromInline
    func order(of ref: String) -> Cart? { state.withLock { $0.orders.values[ref] } }

    /// A change to `cart` is durable: a new order with a ref is recorded, order and all; a kept order is replaced.
    @usableFromInline
    func committed(_ cart: Cart, created: Bool) {
        guard let ref = cart.ref else { return }
        state.withLock { state in
            if created {
                state.ids.add(ref, cart.id)
                state.orders.add(ref, cart)
            } else if state.orders.values[ref]?.id == cart.id {
                state.orders.values[ref] = cart
            }
        }
    }
}
