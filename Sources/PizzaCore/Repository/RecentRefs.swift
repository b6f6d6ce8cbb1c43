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
///
/// One table holds both, so that a create asks it once and a commit hashes each ref it adds or pushes out once:
/// the two tables this had before cost a create six lookups of its ref's hash, 2.5 % of pizzad's CPU.
@usableFromInline
final class RecentRefs: Sendable {
    /// What is known of a recent ref: its order's id, and the order itself while it is among the newest.
    @usableFromInline
    struct Known: Sendable {
        @usableFromInline var id: Int64
        @usableFromInline var order: Cart?
    }

    /// Refs in the order they were added, the oldest overwritten once `capacity` are held.
    private struct Ring {
        let capacity: Int
        var refs: [String] = []
        var next = 0

        /// Adds `ref`; returns the ref it pushed out, if the ring was full (`ref` itself with no room at all).
        mutating func add(_ ref: String) -> String? {
            guard capacity > 0 else { return ref }
            if refs.count < capacity {
                refs.append(ref)
                return nil
            }
            let oldest = refs[next]
            refs[next] = ref
            next = (next + 1) % capacity
            return oldest
        }
    }

    private struct State {
        var known: [String: Known] = [:]
        /// The last `capacity` refs: their entries are dropped as they are pushed out.
        var ids: Ring
        /// The newest refs whose order is kept: their orders are dropped as they are pushed out.
        var orders: Ring
    }

    private let state: Locked<State>

    @usableFromInline
    init(capacity: Int = 16_384, ordersCapacity: Int = 128) {
        precondition(capacity > 0, "RecentRefs needs room for at least one ref")
        let kept = min(max(ordersCapacity, 0), capacity)
        state = Locked(State(ids: Ring(capacity: capacity), orders: Ring(capacity: kept)))
    }

    /// The id of the order created with `ref`, and the order as it is now if it is among the newest; nil if `ref` is
    /// not among the recent ones.
    @usableFromInline
    func known(_ ref: String) -> Known? { state.withLock { $0.known[ref] } }

    /// A change to `cart` is durable: a new order with a ref is recorded, order and all; a kept order is replaced.
    @usableFromInline
    func committed(_ cart: Cart, created: Bool) {
        guard let ref = cart.ref else { return }
        state.withLock { state in
            if created {
                state.known[ref] = Known(id: cart.id, order: cart)
                // The orders' ring is the shorter: a ref it pushes out is still known by id. Read and set rather
                // than `known[old]?.order = nil`: the dictionary's `modify` coroutine allocates its frame.
                if let old = state.orders.add(ref), let known = state.known[old] {
                    state.known[old] = Known(id: known.id, order: nil)
                }
                if let old = state.ids.add(ref) { state.known[old] = nil }
            } else if let known = state.known[ref], known.id == cart.id, known.order != nil {
                state.known[ref] = Known(id: known.id, order: cart)
            }
        }
    }
}
