public import PizzaCore
public import PizzaWire

/// `daemon.hello`: who answers.
public struct HelloAnswer: Answer, Equatable {
    /// pizzad's version.
    public var version: String
    /// The protocol version it speaks (`MAJOR.MINOR`).
    public var protocolVersion: String
    /// Its process id.
    public var pid: Int64

    /// An answer.
    public init(version: String, protocolVersion: String, pid: Int64) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.pid = pid
    }

    enum CodingKeys: String, CodingKey {
        case version
        case protocolVersion = "protocol"
        case pid
    }
}

/// `daemon.status`: the daemon, its database, its orders by status.
public struct StatusAnswer: Answer, Equatable {
    /// The SQLite file.
    public struct Database: Codable, Sendable, Equatable {
        /// Its path.
        public var path: String
        /// Its size.
        public var bytes: Int64
        /// `PRAGMA user_version`.
        public var schemaVersion: Int64
        /// `wal`, as it should be.
        public var journalMode: String
        /// `full` or `normal`.
        public var synchronous: String
        /// The linked SQLite's version.
        public var sqliteVersion: String

        /// A database's figures.
        public init(
            path: String, bytes: Int64, schemaVersion: Int64, journalMode: String, synchronous: String,
            sqliteVersion: String
        ) {
            self.path = path
            self.bytes = bytes
            self.schemaVersion = schemaVersion
            self.journalMode = journalMode
            self.synchronous = synchronous
            self.sqliteVersion = sqliteVersion
        }
    }

    /// pizzad's version.
    public var version: String
    /// Its process id.
    public var pid: Int64
    /// Seconds since start, to the millisecond.
    public var uptime: Double
    /// `ok`, or `failing: …` while the disk refuses writes.
    public var storage: String
    /// The SQLite file.
    public var database: Database
    /// Orders per status, in the lifecycle's order.
    public var orders: Members<Int64>
    /// The repository's subscribers.
    public var delegates: Int64
    /// Open control-socket connections.
    public var connections: Int64
    /// Open `events.watch` streams.
    public var watchers: Int64
    /// The metrics endpoint's URL, nil while it is off.
    public var metrics: String?
    /// Shipping to the centre, nil while it is off.
    public var replication: ReplicationStatusAnswer?

    /// An answer.
    public init(
        version: String, pid: Int64, uptime: Double, storage: String, database: Database, orders: Members<Int64>,
        delegates: Int64, connections: Int64, watchers: Int64, metrics: String?,
        replication: ReplicationStatusAnswer?
    ) {
        self.version = version
        self.pid = pid
        self.uptime = uptime
        self.storage = storage
        self.database = database
        self.orders = orders
        self.delegates = delegates
        self.connections = connections
        self.watchers = watchers
        self.metrics = metrics
        self.replication = replication
    }
}

/// `metrics.get`: the Prometheus text.
public struct MetricsAnswer: Answer, Equatable {
    /// The text exposition.
    public var text: String

    /// An answer.
    public init(text: String) { self.text = text }
}

/// `order.list`: a page of orders, newest first, and the cursor for the next.
public struct OrderListAnswer: Answer {
    /// The orders, each in its one wire form.
    public var orders: [Cart]
    /// `after` for the next page, nil on the last.
    public var next: Int64?

    /// An answer.
    public init(orders: [Cart], next: Int64?) {
        self.orders = orders
        self.next = next
    }
}

/// An `events.watch` notification's params: one committed change.
public struct EventAnswer: Answer {
    /// Its audit sequence number.
    public var seq: Int64
    /// When it committed (ISO-8601).
    public var at: String
    /// What happened (`created`, `placed`, …).
    public var kind: String
    /// The order after it.
    public var order: Cart

    /// An answer.
    public init(seq: Int64, at: String, kind: String, order: Cart) {
        self.seq = seq
        self.at = at
        self.kind = kind
        self.order = order
    }
}

/// The notification that ends a watcher the daemon gave up on (too slow to read).
public struct DroppedAnswer: Answer, Equatable {
    /// Why.
    public var reason: String

    /// An answer.
    public init(reason: String) { self.reason = reason }
}

/// An event that belongs to no order (CONTRACT section 17): `{seq, at, kind, order: null}` and `item` (an item's
/// availability) or `report` (a Z report).
public struct ShopEventAnswer: Answer, Equatable {
    /// A menu item's availability as an event carries it.
    public struct Item: Codable, Sendable, Equatable {
        /// The kind, product or extra.
        public var name: String
        /// Whether it may be ordered now.
        public var available: Bool

        /// An item.
        public init(name: String, available: Bool) {
            self.name = name
            self.available = available
        }
    }

    /// Its audit sequence number.
    public var seq: Int64
    /// When it committed.
    public var at: String
    /// `availability_changed` or `z_report`.
    public var kind: String
    /// The item, for `availability_changed`.
    public var item: Item?
    /// The report, for `z_report`.
    public var report: ZReport?

    /// An answer.
    public init(seq: Int64, at: String, kind: String, item: Item? = nil, report: ZReport? = nil) {
        self.seq = seq
        self.at = at
        self.kind = kind
        self.item = item
        self.report = report
    }

    private enum CodingKeys: String, CodingKey { case seq, at, kind, order, item, report }

    /// Reads the event (its `order` is null).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int64.self, forKey: .seq)
        at = try container.decode(String.self, forKey: .at)
        kind = try container.decode(String.self, forKey: .kind)
        item = try container.decodeIfPresent(Item.self, forKey: .item)
        report = try container.decodeIfPresent(ZReport.self, forKey: .report)
    }

    /// `{seq, at, kind, order: null, item|report}`, as the daemon sends it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(at, forKey: .at)
        try container.encode(kind, forKey: .kind)
        try container.encodeNil(forKey: .order)
        if let item { try container.encode(item, forKey: .item) }
        if let report { try container.encode(report, forKey: .report) }
    }
}

/// A notification on an `events.watch` stream: an event, or the daemon dropping the watcher.
public enum WatchNotification: Sendable {
    /// A committed change.
    case event(EventAnswer)
    /// A committed change that belongs to no order (an item's availability, a Z report).
    case shop(ShopEventAnswer)
    /// The daemon gave up on this watcher; nothing more comes.
    case dropped(DroppedAnswer)

    /// The notification in `message` (`{"jsonrpc":"2.0","method":…,"params":…}`).
    public init(message: JSONValue) throws {
        let method = message["method"]?.stringValue
        let params = message["params"] ?? .null
        do {
            switch method {
            case "dropped": self = .dropped(try DroppedAnswer(json: params))
            case "event" where params["order"] == .null: self = .shop(try ShopEventAnswer(json: params))
            case "event": self = .event(try EventAnswer(json: params))
            default:
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "not an event or dropped notification: \(method ?? "none")")
                )
            }
        } catch {
            throw AnswerError(method: "events.watch", error)
        }
    }
}
