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
/// One table finds a ref, by the number it was added as; the refs, their ids and the kept orders sit in rings
/// indexed by that number. A create asks the table once, a commit adds one entry and drops the one it pushes out:
/// the two tables this had before cost a create six lookups of its ref's hash (2.5 % of pizzad's CPU), and a table
/// holding the orders inline took room for one in each of its 16,384 entries (5 MiB of RSS).
@usableFromInline
final class RecentRefs: Sendable {
    /// What is known of a recent ref: its order's id, and the order itself while it is among the newest.
    @usableFromInline
    struct Known: Sendable {
        @usableFromInline let id: Int64
        @usableFromInline let order: Cart?
    }

    private struct State {
        let capacity: Int
        let ordersCapacity: Int
        /// Each recent ref's number: the count of refs added before it.
        var numbers: [String: Int] = [:]
        /// The last `capacity` refs and their orders' ids, ref number `n` at `n % capacity`.
        var refs: [String] = []
        var ids: [Int64] = []
        /// The newest `ordersCapacity` orders, ref number `n` at `n % ordersCapacity`.
        var orders: [Cart?] = []
        /// How many refs were ever added.
        var added = 0

        func isKept(_ number: Int) -> Bool { number >= added - ordersCapacity }
    }

    private let state: Locked<State>

    @usableFromInline
    init(capacity: Int = 16_384, ordersCapacity: Int = 128) {
        precondition(capacity > 0, "RecentRefs needs room for at least one ref")
        let kept = min(max(ordersCapacity, 0), capacity)
        state = Locked(State(capacity: capacity, ordersCapacity: kept))
    }

    /// The id of the order created with `ref`, and the order as it is now if it is among the newest; nil if `ref` is
    /// not among the recent ones.
    @usableFromInline
    func known(_ ref: String) -> Known? {
        state.withLock { state in
            guard let number = state.numbers[ref] else { return nil }
            let order = state.isKept(number) ? state.orders[number % state.ordersCapacity] : nil
            return Known(id: state.ids[number % state.capacity], order: order)
        }
    }

    /// A change to `cart` is durable: a new order with a ref is recorded, order and all; a kept order is replaced.
    @usableFromInline
    func committed(_ cart: Cart, created: Bool) {
        guard let ref = cart.ref else { return }
        state.withLock { state in
            if created {
                let number = state.added
                let slot = number % state.capacity
                if state.refs.count < state.capacity {
                    state.refs.append(ref)
                    state.ids.append(cart.id)
                } else {
                    state.numbers[state.refs[slot]] = nil
                    state.refs[slot] = ref
                    state.ids[slot] = cart.id
                }
                state.numbers[ref] = number
                if state.ordersCapacity > 0 {
                    if state.orders.count < state.ordersCapacity {
                        state.orders.append(cart)
                    } else {
                        state.orders[number % state.ordersCapacity] = cart
                    }
                }
                state.added += 1
            } else if let number = state.numbers[ref], state.isKept(number),
                state.orders[number % state.ordersCapacity]?.id == cart.id
            {
                state.orders[number % state.ordersCapacity] = cart
            }
        }
    }
}
