import PizzaCore
import PizzaStorage

/// The `Idempotency-Key`s the database keeps, in memory: a key not among them is new, and its request goes straight
/// to the change without a read; only a key among them is looked up (`keptAnswer`), for a replay or a 422.
///
/// Loaded at start; a key joins once its change committed. Only this process writes `api_requests`, so the set and
/// the table agree, except that the table may lose old keys first (`RequestLog` deletes past their keeping time):
/// a key here whose answer is gone is simply new again.
final class KnownKeys: Sendable {
    private let keys = Locked<[DeviceKey: Timestamp]>([:])
    private let keepHours: Int

    init(store: SQLiteOrderStore, keepHours: Int) throws {
        self.keepHours = keepHours
        var loaded: [DeviceKey: Timestamp] = [:]
        for row in try store.requestKeys() {
            loaded[DeviceKey(device: row.device, key: row.key)] = Timestamp(iso8601: row.at) ?? .now()
        }
        keys.withLock { $0 = loaded }
    }

    func contains(device: String, key: String) -> Bool {
        keys.withLock { $0[DeviceKey(device: device, key: key)] != nil }
    }

    /// Records a key whose change committed; every 10,000th also forgets those past their keeping time.
    func insert(device: String, key: String) {
        let now = Timestamp.now()
        keys.withLock { keys in
            keys[DeviceKey(device: device, key: key)] = now
            if keys.count % 10_000 == 0 {
                let cutoff = now.millisecondsSince1970 - Int64(keepHours) * 3_600_000
                keys = keys.filter { $0.value.millisecondsSince1970 >= cutoff }
            }
        }
    }
}
