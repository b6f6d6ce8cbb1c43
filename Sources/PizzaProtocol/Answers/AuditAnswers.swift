public import PizzaCore
public import PizzaWire

/// One audit entry as `audit.list` sends it.
public struct AuditEntryAnswer: Codable, Sendable, Equatable {
    /// Its sequence number.
    public var seq: Int64
    /// When (ISO-8601, as hashed).
    public var at: String
    /// Who.
    public var actor: ChangeActor
    /// `created`, `item_added`, … (the change's kind).
    public var action: String
    /// The order changed; null for an entry that belongs to no order (an item's availability, a Z report).
    public var order: Int64?
    /// Its status after the change; null with the order.
    public var status: String?
    /// A cancellation's reason.
    public var reason: String?
    /// The order before (nil for a creation), in the one wire form; a damaged entry's text as it parses.
    public var before: JSONValue?
    /// The order after.
    public var after: JSONValue
    /// The entry's hash.
    public var hash: String

    /// An entry.
    public init(
        seq: Int64, at: String, actor: ChangeActor, action: String, order: Int64?, status: String?, reason: String?,
        before: JSONValue?, after: JSONValue, hash: String
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.action = action
        self.order = order
        self.status = status
        self.reason = reason
        self.before = before
        self.after = after
        self.hash = hash
    }
}

/// `audit.list`: entries oldest first, and the cursor for the next page.
public struct AuditListAnswer: Answer, Equatable {
    /// The entries.
    public var entries: [AuditEntryAnswer]
    /// `after` for the next page; nil on the last.
    public var next: Int64?

    /// An answer.
    public init(entries: [AuditEntryAnswer], next: Int64?) {
        self.entries = entries
        self.next = next
    }
}

/// `audit.verify` (CONTRACT section 4: `{ok, entries, firstBad?}`).
public struct AuditVerifyAnswer: Answer, Equatable {
    /// Whether the chain and every order agree.
    public var ok: Bool
    /// Entries checked.
    public var entries: Int64
    /// The first entry that does not verify.
    public var firstBad: Int64?
    /// What is wrong there, in words.
    public var problem: String?

    /// An answer.
    public init(ok: Bool, entries: Int64, firstBad: Int64?, problem: String?) {
        self.ok = ok
        self.entries = entries
        self.firstBad = firstBad
        self.problem = problem
    }
}

/// `db.check` (CONTRACT section 4: `{ok, messages}`).
public struct CheckAnswer: Answer, Equatable {
    /// Whether both checks passed.
    public var ok: Bool
    /// What `integrity_check` and `foreign_key_check` said.
    public var messages: [String]

    /// An answer.
    public init(ok: Bool, messages: [String]) {
        self.ok = ok
        self.messages = messages
    }
}

/// `db.backup` (CONTRACT section 4: `{path, bytes}`).
public struct BackupAnswer: Answer, Equatable {
    /// Where the copy is.
    public var path: String
    /// Its size.
    public var bytes: Int64

    /// An answer.
    public init(path: String, bytes: Int64) {
        self.path = path
        self.bytes = bytes
    }
}
