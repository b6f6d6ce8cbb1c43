public import Logging
import PizzaCore
public import PizzaStorage
import PizzaWire
import PostgresNIO

/// A shop's history at the centre, read back for `pizzad restore --from-central` through the functions of central
/// schema 4 (`pizzad_shop_state`, `pizzad_history`), which give a shop's role its own history and no other's.
///
/// Each entry comes back as the centre stores it: the time as a `timestamptz`, the orders as `jsonb` (their
/// members reordered, spaces added). The shop's texts are rebuilt from them the way the shop wrote them (the time
/// in ``Timestamp``'s form, each order through its wire form), so that recomputing the hash from the fields
/// either gives the hash the centre holds or shows the centre's copy was changed.
public final class CentralHistory: Sendable {
    /// The shop as the centre has it.
    public struct ShopState: Sendable {
        /// The key of the database that ships as this shop.
        public var key: String
        /// The last entry received in order, and its hash.
        public var cursor: Int64
        public var hash: String
        /// How many of the shop's entries are stored up to the cursor (equal to it when none is missing).
        public var events: Int64
        /// When the entry at the cursor was written.
        public var lastAt: String?
    }

    public let state: ShopState
    public let shopID: String
    public let peer: String
    private let central: CentralDatabase

    private init(central: CentralDatabase, state: ShopState, shopID: String) {
        self.central = central
        self.state = state
        self.shopID = shopID
        self.peer = central.configuration.peer
    }

    /// Connects as the shop's role, checks the central schema (at least 4, migrating it when this role may), and
    /// reads the shop's state. Throws ``RestoreError/unknownShop(shop:peer:)`` when the centre has no such shop,
    /// and a ``ReplicationError`` when it cannot be reached or the shop id belongs to another role.
    public static func open(
        _ configuration: ReplicationConfiguration, migrations: [Migration], environment: [String: String],
        logger: Logger
    ) async throws -> CentralHistory {
        let password = try configuration.password(environment: environment)
        let central = try await CentralDatabase.connect(configuration, password: password, logger: logger)
        do {
            try await central.prepareSchema(migrations)
            let shop = configuration.shopID
            let text = try await central.request("reading the shop's state") { connection, logger in
                try await connection.query("SELECT pizzad_shop_state(\(shop))::text", logger: logger).collect()
                    .first.map { try $0.decode(String.self) }
            }
            guard let text, let value = try? JSONParser.parse(text) else {
                throw ReplicationError.central(detail: "pizzad_shop_state answered \(text ?? "nothing")")
            }
            guard let cursor = value["cursor"]?.intValue else {
                throw RestoreError.unknownShop(shop: shop, peer: configuration.peer)
            }
            guard let key = value["key"]?.stringValue, let hash = value["hash"]?.stringValue else {
                throw ReplicationError.central(detail: "pizzad_shop_state answered \(text)")
            }
            let state = ShopState(
                key: key, cursor: cursor, hash: hash, events: value["events"]?.intValue ?? 0,
                lastAt: value["lastAt"]?.stringValue)
            return CentralHistory(central: central, state: state, shopID: shop)
        } catch ReplicationError.shopCollision(let detail) {
            await central.close()
            throw RestoreError.otherShop(shop: configuration.shopID, detail: detail)
        } catch {
            await central.close()
            throw error
        }
    }

    public func close() async { await central.close() }

    /// What the restore calls this source in messages.
    public var source: String { "the centre at \(peer) (shop \(shopID))" }

    /// The shop's entries after `after`, oldest first, at most `limit` (up to 10,000), with the shop's texts
    /// rebuilt. An order the centre holds that pizzad cannot read ends the restore as a broken history.
    public func entries(after: Int64, limit: Int) async throws -> [RebuildEntry] {
        let shop = shopID
        let rows = try await central.request("reading entries after \(after)") { connection, logger in
            try await connection.query(
                "SELECT * FROM pizzad_history(\(shop), \(after), \(Int32(clamping: limit)))", logger: logger
            ).collect().map {
                try $0.decode(
                    (
                        Int64, Int64, Int64, String, Int32, String, Int64?, String?, String?, String?, String, String,
                        String, String?, String?
                    ).self)
            }
        }
        var entries: [RebuildEntry] = []
        entries.reserveCapacity(rows.count)
        for (
            seq, milliseconds, uid, name, pid, action, order, status, reason, before, after, previous, hash, device,
            address
        )
            in rows
        {
            func cart(_ text: String) throws -> Cart {
                do {
                    return try Cart(wire: try JSONParser.parse(text))
                } catch {
                    throw RestoreError.brokenHistory(
                        source: source, seq: seq, problem: "its order is not one pizzad wrote (\(error))")
                }
            }
            let actor = ChangeActor(
                uid: UInt32(truncatingIfNeeded: uid), name: name, pid: pid, device: device, address: address)
            let at = Timestamp(millisecondsSince1970: milliseconds).description
            if order == nil {
                // An entry that belongs to no order: its record as the shop wrote it (the centre's jsonb orders
                // members its own way).
                let entry = AuditEntry(
                    seq: seq, at: at, actor: actor, action: action, orderID: nil, statusAfter: status,
                    reason: reason, before: try before.map { try Self.shopRecord($0, action, seq) },
                    after: try Self.shopRecord(after, action, seq), prevHash: previous, hash: hash)
                entries.append(RebuildEntry(entry: entry, before: nil, after: nil))
                continue
            }
            let beforeCart = try before.map(cart)
            let afterCart = try cart(after)
            let entry = AuditEntry(
                seq: seq, at: Timestamp(millisecondsSince1970: milliseconds).description,
                actor: ChangeActor(
                    uid: UInt32(truncatingIfNeeded: uid), name: name, pid: pid, device: device, address: address),
                action: action,
                orderID: order, statusAfter: status, reason: reason, before: beforeCart?.wireText,
                after: afterCart.wireText, prevHash: previous, hash: hash)
            entries.append(RebuildEntry(entry: entry, before: beforeCart, after: afterCart))
        }
        return entries
    }

    /// A record of an entry that belongs to no order, written as pizzad writes it: a Z report through its type, an
    /// item's availability as `{name, available}`.
    static func shopRecord(_ text: String, _ action: String, _ seq: Int64) throws -> String {
        let broken = { (problem: String) in
            RestoreError.brokenHistory(source: "the centre", seq: seq, problem: problem)
        }
        guard let value = try? JSONParser.parse(text) else { throw broken("its record is not JSON") }
        switch ShopChange.Kind(rawValue: action) {
        case .zReport:
            guard let report = try? JSONValueDecoder().decode(ZReport.self, from: value),
                let written = try? JSONValueEncoder().encode(report)
            else { throw broken("its record is not a Z report") }
            return written.jsonText
        case .availabilityChanged:
            guard let name = value["name"]?.stringValue, let available = value["available"]?.boolValue else {
                throw broken("its record names no item and availability")
            }
            return JSONValue.object([("name", .string(name)), ("available", .bool(available))]).jsonText
        case nil:
            throw broken("it names no order, and \(action) belongs to one")
        }
    }
}
