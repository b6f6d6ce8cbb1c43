import Testing

@testable import PizzaCore

@Suite("Recent refs: what a till's retry is answered from")
struct RecentRefsTests {
    let actor = ChangeActor(uid: 1000, name: "till", pid: 42)
    let now = Timestamp(millisecondsSince1970: 1_763_717_400_123)

    func cart(_ id: Int64, ref: String?, note: String? = nil) -> Cart {
        Cart(
            id: id, ref: ref, customer: nil, note: note, status: .open, items: [], currency: "EUR", createdAt: now,
            updatedAt: now, history: [StatusChange(from: nil, to: .open, at: now, actor: actor)])
    }

    @Test("the newest refs keep their order, older ones their id, the oldest nothing")
    func windows() {
        let refs = RecentRefs(capacity: 4, ordersCapacity: 2)
        for id in Int64(1)...5 { refs.committed(cart(id, ref: "t-\(id)"), created: true) }
        #expect(refs.known("t-1") == nil)
        for id in Int64(2)...3 {
            let known = refs.known("t-\(id)")
            #expect(known?.id == id)
            #expect(known?.order == nil)
        }
        for id in Int64(4)...5 { #expect(refs.known("t-\(id)")?.order?.id == id) }
        #expect(refs.known("t-6") == nil)
    }

    @Test("a later change replaces a kept order, and leaves a dropped one dropped")
    func changes() {
        let refs = RecentRefs(capacity: 4, ordersCapacity: 1)
        refs.committed(cart(1, ref: "t-1"), created: true)
        refs.committed(cart(2, ref: "t-2"), created: true)
        refs.committed(cart(2, ref: "t-2", note: "no onions"), created: false)
        #expect(refs.known("t-2")?.order?.note == "no onions")
        refs.committed(cart(1, ref: "t-1", note: "late"), created: false)
        #expect(refs.known("t-1")?.id == 1)
        #expect(refs.known("t-1")?.order == nil)
        // An order without a ref is not kept at all.
        refs.committed(cart(3, ref: nil), created: true)
        #expect(refs.known("t-2")?.order?.id == 2)
    }

    @Test("with no room for orders, every ref is still known by id")
    func noOrders() {
        let refs = RecentRefs(capacity: 2, ordersCapacity: 0)
        refs.committed(cart(1, ref: "t-1"), created: true)
        #expect(refs.known("t-1")?.id == 1)
        #expect(refs.known("t-1")?.order == nil)
    }
}
