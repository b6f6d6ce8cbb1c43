public import PizzaCore
import SQLite

/// Where one printer or webhook stands in the audit log (`outbox_destinations`, schema 6).
public struct OutboxCursor: Sendable, Equatable {
    /// The destination's name (`printers[].name`, `webhooks[].name`).
    public var name: String
    /// `printer` or `webhook`.
    public var kind: String
    /// The last audit entry it has dealt with: sent and confirmed, or not for it.
    public var deliveredSeq: Int64
    /// The entry a printer was last sent before its outcome was known; past `deliveredSeq`, the next attempt says
    /// REPRINT.
    public var attemptedSeq: Int64
    /// When its current run of failures began; nil while it delivers.
    public var failingSince: Timestamp?
    /// The last failure, in words.
    public var lastError: String?
    /// When it was disabled; nil while enabled.
    public var disabledAt: Timestamp?
    /// Why it was disabled, in a sentence.
    public var disabledReason: String?
}

extension SQLiteOrderStore {
    /// The cursor of `name`, created at the newest audit entry when it has none yet (a new destination is not sent
    /// the shop's whole past).
    public func outboxCursor(name: String, kind: String, at time: Timestamp = .now()) async throws -> OutboxCursor {
        try await withWriter { db in
            try db.execute(
                literal: """
                    INSERT INTO outbox_destinations (name, kind, delivered_seq, created_at)
                    VALUES (?, ?, (SELECT coalesce(max(seq), 0) FROM audit_log), ?)
                    ON CONFLICT (name) DO NOTHING
                    """, [name, kind, time.description])
            guard let cursor = try db.outboxCursor(name: name) else {
                throw StorageError.badMigration(file: "0006_outbox.sql", reason: "outbox_destinations lost \(name)")
            }
            return cursor
        }
    }

    /// Every destination's cursor, by name.
    public func outboxCursors() throws -> [OutboxCursor] {
        try read { db in
            try db.statement("SELECT \(Database.outboxColumns) FROM outbox_destinations ORDER BY name")
                .map([], Database.outboxCursor)
        }
    }

    /// Records that `name` dealt with every entry up to `seq` (and that its failures, if any, are over). Rides in
    /// the next group commit.
    public func recordDelivered(name: String, seq: Int64) async throws {
        try await enqueue { db in
            try db.execute(
                literal: """
                    UPDATE outbox_destinations SET delivered_seq = max(delivered_seq, ?), failing_since = NULL,
                           last_error = NULL WHERE name = ?
                    """, [seq, name])
        }
    }

    /// Records that entry `seq` is being sent to `name` before its outcome is known (a printer's REPRINT mark); an
    /// earlier `seq` takes the mark back (nothing was sent after all).
    public func recordAttempt(name: String, seq: Int64) async throws {
        try await enqueue { db in
            try db.execute(
                literal: "UPDATE outbox_destinations SET attempted_seq = ? WHERE name = ?",
                [seq, name])
        }
    }

    /// Records a failure: the run of failures starts now unless it already had.
    public func recordFailure(name: String, error: String, at time: Timestamp = .now()) async throws {
        try await enqueue { db in
            try db.execute(
                literal: """
                    UPDATE outbox_destinations SET failing_since = coalesce(failing_since, ?), last_error = ?
                    WHERE name = ?
                    """, [time.description, String(error.prefix(500)), name])
        }
    }

    /// Disables `name` (failed past its limit, or a webhook's 410), or enables it again (`reason` nil: `pizzactl
    /// outbox retry`), which also forgets its failures.
    public func recordDisabled(name: String, reason: String?, at time: Timestamp = .now()) async throws {
        try await enqueue { db in
            if let reason {
                try db.execute(
                    literal: "UPDATE outbox_destinations SET disabled_at = ?, disabled_reason = ? WHERE name = ?",
                    [time.description, String(reason.prefix(500)), name])
            } else {
                try db.execute(
                    literal: """
                        UPDATE outbox_destinations SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
                        WHERE name = ?
                        """, [name])
            }
        }
    }

    /// How many audit entries after `seq` are events a destination is sent (a `created` entry when `created`, else
    /// an order entering one of `statuses`, a creation included), and when the first of them was written.
    public func outboxWaiting(after seq: Int64, created: Bool, statuses: [String], actions: [String] = []) throws -> (
        count: Int64, oldest: Timestamp?
    ) {
        var parts: [String] = []
        if created { parts.append("action = 'created'") }
        if !statuses.isEmpty {
            // A status entered: by creating the order in it, placing, advancing or cancelling it.
            let list = statuses.map { _ in "?" }.joined(separator: ", ")
            parts.append(
                "(action IN ('created', 'placed', 'advanced', 'cancelled') AND status_after IN (\(list)))")
        }
        if !actions.isEmpty {
            parts.append("action IN (\(actions.map { _ in "?" }.joined(separator: ", ")))")
        }
        guard !parts.isEmpty else { return (0, nil) }
        let bindings: [any SQLBindable] = [seq] + statuses + actions
        return try read { db in
            try db.statement(
                "SELECT count(*), min(at) FROM audit_log WHERE seq > ? AND (\(parts.joined(separator: " OR ")))"
            ).first(bindings) { row in (row.int64(0), row.optionalString(1).flatMap(Timestamp.init(iso8601:))) }
                ?? (0, nil)
        }
    }
}

extension Database {
    static let outboxColumns =
        "name, kind, delivered_seq, attempted_seq, failing_since, last_error, disabled_at, disabled_reason"

    static func outboxCursor(_ row: Row) -> OutboxCursor {
        OutboxCursor(
            name: row.string(0), kind: row.string(1), deliveredSeq: row.int64(2), attemptedSeq: row.int64(3),
            failingSince: row.optionalString(4).flatMap(Timestamp.init(iso8601:)), lastError: row.optionalString(5),
            disabledAt: row.optionalString(6).flatMap(Timestamp.init(iso8601:)),
            disabledReason: row.optionalString(7))
    }

    func outboxCursor(name: String) throws -> OutboxCursor? {
        try statement("SELECT \(Self.outboxColumns) FROM outbox_destinations WHERE name = ?").first(
            [name], Self.outboxCursor)
    }
}
