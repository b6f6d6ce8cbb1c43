import PizzaCore
import Testing

@testable import PizzaAPI

/// The keys the API knows in memory: kept as they commit, forgotten oldest first past their keeping time.
@Suite("Order API: the keys kept in memory")
struct KnownKeysTests {
    @Test("keys past their keeping time are forgotten oldest first, a few at each insert, the rest kept")
    func expiry() async throws {
        let fixture = try await APIFixture()
        let keys = try KnownKeys(store: fixture.orders.store, keepHours: 1)
        let start = Timestamp(millisecondsSince1970: 1_800_000_000_000)
        for index in 0..<5_000 {
            let now = Timestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64(index) * 1_000)
            keys.insert(device: "till-1", key: "k\(index)", now: now)
        }
        // 5,000 keys a second apart: at the last insert, those kept more than an hour before it (the first 1,399)
        // are gone, the other 3,601 kept.
        #expect(keys.count == 3_601)
        #expect(!keys.contains(device: "till-1", key: "k0"))
        #expect(!keys.contains(device: "till-1", key: "k1398"))
        #expect(keys.contains(device: "till-1", key: "k1399"))
        #expect(keys.contains(device: "till-1", key: "k4999"))
        #expect(!keys.contains(device: "till-2", key: "k4999"))
    }
}
