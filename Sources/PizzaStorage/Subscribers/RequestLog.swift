public import PizzaCore
import SQLite

/// Keeps the order API's answer to an `Idempotency-Key` (``RequestKey``) in `api_requests`, inside the change's
/// transaction: the key and the change commit together or not at all, so a replay after a crash finds either both
/// or neither. The answer's body is the audit entry's `after` (the order as the change left it), not a second copy.
///
/// Every 1,000th keyed change also deletes the keys older than their keeping time (``keepHours``), in the same
/// transaction: the table stays as large as a couple of days of API traffic.
public final class RequestLog: OrderChangeWriter {
    /// How long a key is kept (`api.idempotencyHours`).
    public let keepHours: Locked<Int>
    private let sinceSweep = Locked(0)

    /// A log keeping keys `keepHours` (the daemon sets `api.idempotencyHours`).
    public init(keepHours: Int = 48) {
        self.keepHours = Locked(keepHours)
    }

    /// Inserts the change's key, if it has one, in its transaction.
    public func repository(willCommit change: OrderChange, in transaction: WriteTransaction) throws {
        guard let key = change.requestKey else { return }
        try transaction.db.execute(
            literal: """
                INSERT INTO api_requests (device, key, request, seq, status, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """
        ) { row in
            row.bind(key.device)
            row.bind(key.key)
            row.bind(key.request)
            row.bind(change.sequence)
            row.bind(key.status)
            row.bind(change.atText)
        }
        let sweep = sinceSweep.withLock { count in
            count += 1
            guard count >= 1_000 else { return false }
            count = 0
            return true
        }
        if sweep {
            let hours = keepHours.withLock { $0 }
            let cutoff = Timestamp(millisecondsSince1970: change.at.millisecondsSince1970 - Int64(hours) * 3_600_000)
            try transaction.db.execute(literal: "DELETE FROM api_requests WHERE created_at < ?", [cutoff.description])
        }
    }
}
