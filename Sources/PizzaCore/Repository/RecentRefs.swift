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
/// database holds. Only the newest `ordersCapacity` are kept (a till retries within seconds; an order with its
/// history is about a kilobyte): a retry of an older one reads it.
@usableFromInline
final class RecentRefs: Sendable {
    private struct State {
        var ids: [String: Int64] = [:]
        /// The refs in the order they were added, overwritten from the oldest once full.
        var ring: [String] = []
        var next = 0
        /// The newest refs' orders, as they are now.
        var orders: [String: Cart] = [:]
        var ordersRing: [String] = []
        var ordersNext = 0
    }

    let capacity: Int
    let ordersCapacity: Int
    private let state = Locked(State())

    @usableFromInline
    init(capacity: Int = 16_384, ordersCapacity: Int = 1_024) {
        precondition(capacity > 0, "RecentRefs needs room for at least one ref")
        self.capacity = capacity
        self.ordersCapacity = min(max(ordersCapacity, 0), capacity)
    }

    /// The id of the order created with `ref`, if it is among the recent ones.
    @usableFromInline
    func id(of ref: String) -> Int64? { state.withLock { $0.ids[ref] } }

    /// The order created with `ref` as it is now, if it is among the newest.
    @usableFromInline
    func order(of ref: String) -> Cart? { state.withLock { $0.orders[ref] } }

    /// A change to `cart` is durable: a new order with a ref is recorded, order and all; a kept order is replaced.
    @usableFromInline
    func committed(_ cart: Cart, created: Bool) {
        guard let ref = cart.ref else { return }
        state.withLock { state in
            if created {
                Self.add(ref, id: cart.id, to: &state, capacity: capacity)
                guard ordersCapacity > 0 else { return }
                if state.ordersRing.count < ordersCapacity {
                    state.ordersRing.append(ref)
                } else {
                    state.orders[state.ordersRing[state.ordersNext]] = nil
                    state.ordersRing[state.ordersNext] = ref
                    state.ordersNext = (state.ordersNext + 1) % ordersCapacity
                }
                state.orders[ref] = cart
            } else if state.orders[ref]?.id == cart.id {
                state.orders[ref] = cart
            }
        }
    }

    private static func add(_ ref: String, id: Int64, to state: inout State, capacity: Int) {
        if state.ring.count < capacity {
            state.ring.append(ref)
        } else {
            state.ids[state.ring[state.next]] = nil
            state.ring[state.next] = ref
            state.next = (state.next + 1) % capacity
        }
        state.ids[ref] = id
    }
}
