/// The client references (`ref`) of the orders created most recently, with their ids: a till's retry of an order it
/// already placed is answered from the read pool by id, without waiting for a group commit and writing nothing.
///
/// Only refs whose order is committed are here (they are added after the durable commit), so an id found is an order
/// that exists. A ref not found may still exist (older than the last `capacity`): the write transaction's own lookup
/// answers that one, as it answers every new ref. So this never decides that a ref is new, only that it is known.
@usableFromInline
final class RecentRefs: Sendable {
    private struct State {
        var ids: [String: Int64] = [:]
        /// The refs in the order they were added, overwritten from the oldest once full.
        var ring: [String] = []
        var next = 0
    }

    let capacity: Int
    private let state = Locked(State())

    @usableFromInline
    init(capacity: Int = 16_384) {
        precondition(capacity > 0, "RecentRefs needs room for at least one ref")
        self.capacity = capacity
    }

    /// The id of the order created with `ref`, if it is among the recent ones.
    @usableFromInline
    func id(of ref: String) -> Int64? { state.withLock { $0.ids[ref] } }

    /// Records that the order `id` was created with `ref` and is durable.
    @usableFromInline
    func add(_ ref: String, id: Int64) {
        state.withLock { state in
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
}
