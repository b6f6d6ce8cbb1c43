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
        let hours = keepHours.withLock { $0 }
        let cutoff = Timestamp(millisecondsSince1970: change.at.millisecondsSince1970 - Int64(hours) * 3_600_000)
        // A key kept past its time may still be here (the sweep below runs now and then): it is new again, and
        // its row is this change's. A row still in its time is never replaced: the key's answer stays the first.
        let before = transaction.db.totalChanges
        try transaction.db.execute(
            literal: """
                INSERT INTO api_requests (device, key, request, seq, status, created_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (device, key) DO UPDATE SET request = excluded.request, seq = excluded.seq,
                    status = excluded.status, created_at = excluded.created_at
                WHERE api_requests.created_at < ?
                """
        ) { row in
            row.bind(key.device)
            row.bind(key.key)
            row.bind(key.request)
            row.bind(change.sequence)
            // The table keeps the answer's HTTP status for the API's replay (0005's api_requests.status).
            row.bind(key.creates ? 201 : 200)
            row.bind(change.atText)
            row.bind(cutoff.description)
        }
        guard transaction.db.totalChanges > before else { throw KeyStillKept(device: key.device, key: key.key) }
        let sweep = sinceSweep.withLock { count in
            count += 1
            guard count >= 1_000 else { return false }
            count = 0
            return true
        }
        if sweep {
            try transaction.db.execute(literal: "DELETE FROM api_requests WHERE created_at < ?", [cutoff.description])
        }
    }
}

/// A change came with an `Idempotency-Key` whose first answer is still kept: it is that answer's to give (the order
/// API looks it up before it submits, so this means two writers of one database).
public struct KeyStillKept: Error, CustomStringConvertible {
    /// The device that sent it.
    public let device: String
    /// Its `Idempotency-Key`.
    public let key: String

    /// The error in a sentence, for the log.
    public var description: String { "the Idempotency-Key \(key) of device \(device) is still kept" }
}
