import PizzaCore
import PizzaStorage

/// The `Idempotency-Key`s the database keeps, in memory: a key not among them is new, and its request goes straight
/// to the change without a read; only a key among them is looked up (`keptAnswer`), for a replay or a 422.
///
/// Loaded at start; a key joins once its change committed. Only this process writes `api_requests`, so the set and
/// the table agree, except that the table may lose old keys first (`RequestLog` deletes past their keeping time):
/// a key here whose answer is gone is simply new again.
///
/// Keys are forgotten past their keeping time in the order they were kept, a few at each insert: never the whole set
/// at once under the lock, which at a platform's rate over 48 hours would be millions of keys on an event loop.
final class KnownKeys: Sendable {
    private struct Kept {
        var at: [DeviceKey: Timestamp] = [:]
        /// The keys in the order they were kept, the oldest at `head`.
        var order: [(key: DeviceKey, at: Timestamp)] = []
        var head = 0
    }

    private let kept = Locked(Kept())
    private let keepHours: Int

    init(store: SQLiteOrderStore, keepHours: Int) throws {
        self.keepHours = keepHours
        var loaded = Kept()
        let rows = try store.requestKeys().map { row in
            (key: DeviceKey(device: row.device, key: row.key), at: Timestamp(iso8601: row.at) ?? .now())
        }
        loaded.order = rows.sorted { $0.at < $1.at }
        for row in loaded.order { loaded.at[row.key] = row.at }
        kept.withLock { $0 = loaded }
    }

    func contains(device: String, key: String) -> Bool {
        kept.withLock { $0.at[DeviceKey(device: device, key: key)] != nil }
    }

    /// Records a key whose change committed, and forgets the oldest ones past their keeping time.
    func insert(device: String, key: String, now: Timestamp = .now()) {
        let key = DeviceKey(device: device, key: key)
        let cutoff = now.millisecondsSince1970 - Int64(keepHours) * 3_600_000
        kept.withLock { kept in
            kept.at[key] = now
            kept.order.append((key, now))
            while kept.head < kept.order.count, kept.order[kept.head].at.millisecondsSince1970 < cutoff {
                let oldest = kept.order[kept.head]
                // Only if it was not kept again since (a key is kept once, but the table is the truth).
                if kept.at[oldest.key] == oldest.at { kept.at[oldest.key] = nil }
                kept.head += 1
            }
            if kept.head > 1_024, kept.head * 2 > kept.order.count {
                kept.order.removeFirst(kept.head)
                kept.head = 0
            }
        }
    }

    /// How many keys are kept (for tests).
    var count: Int { kept.withLock { $0.at.count } }
}
