import PizzaCore
import SQLite

/// Reading orders back from their rows; shared by the read pool and the write transaction.
extension Database {
    /// The columns ``cartHeader(_:)`` reads, in its order (the two lookups by id and by ref spell them out, so that
    /// their SQL is a literal: see ``Database/statement(literal:)``).
    static let cartColumns =
        "id, ref, customer, note, status, currency, created_at, updated_at, fulfilment, phone, street, postcode, city, "
        + "address_notes, dine_table, due_at, parts"

    func loadCart(id: Int64) throws -> Cart? {
        try statement(
            literal: """
                SELECT id, ref, customer, note, status, currency, created_at, updated_at, fulfilment, phone, street,
                       postcode, city, address_notes, dine_table, due_at, parts
                FROM carts WHERE id = ?
                """
        )
        .first([id]) { try cartHeader($0) }.map { try complete($0) }
    }

    func loadCart(ref: String) throws -> Cart? {
        try statement(
            literal: """
                SELECT id, ref, customer, note, status, currency, created_at, updated_at, fulfilment, phone, street,
                       postcode, city, address_notes, dine_table, due_at, parts
                FROM carts WHERE ref = ?
                """
        )
        .first([ref]) { try cartHeader($0) }.map { try complete($0) }
    }

    func listCarts(_ query: OrderQuery) throws -> OrderPage {
        var conditions: [String] = []
        var arguments: [any SQLBindable] = []
        if let status = query.status {
            conditions.append("status = ?")
            arguments.append(status.rawValue)
        }
        if let since = query.since {
            conditions.append("created_at >= ?")
            arguments.append(since.description)
        }
        if let type = query.type {
            conditions.append("fulfilment = ?")
            arguments.append(type.rawValue)
        }
        let due = "coalesce(due_at, created_at)"
        if let after = query.after {
            switch query.sort {
            case .newest: conditions.append("id < ?")
            case .due: conditions.append("(\(due), id) > (SELECT \(due), id FROM carts WHERE id = ?)")
            }
            arguments.append(after)
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let order = query.sort == .due ? "\(due), id" : "id DESC"
        arguments.append(query.limit + 1)
        let headers = try statement("SELECT \(Self.cartColumns) FROM carts \(filter) ORDER BY \(order) LIMIT ?")
            .map(arguments) { try cartHeader($0) }
        let page = Array(headers.prefix(query.limit))
        return OrderPage(orders: try complete(page), next: headers.count > query.limit ? page.last?.cart.id : nil)
    }

    /// How many orders are in each status, as one snapshot (the caller's read transaction).
    ///
    /// `delivered` holds nearly all of a shop's history, and counting it walked that part of `carts_by_status` row by
    /// row: most of the start-up at a million orders. It is the table's count (SQLite counts a b-tree's cells page
    /// by page, without reading the rows) less the other statuses', each a short range of the index.
    func countCartsByStatus() throws -> [OrderStatus: Int] {
        var counts: [OrderStatus: Int] = [:]
        var others = 0
        for status in OrderStatus.allCases where status != .delivered {
            let count = Int(
                try statement("SELECT count(*) FROM carts WHERE status = ?").first([status.rawValue]) { $0.int64(0) }
                    ?? 0)
            counts[status] = count
            others += count
        }
        let all = Int(try statement("SELECT count(*) FROM carts").first([]) { $0.int64(0) } ?? 0)
        counts[.delivered] = all - others
        return counts
    }

    /// An order's `carts` row: the order without its lines, and which of the whole order's tables hold rows for it.
    struct Header {
        var cart: Cart
        var parts: Int64
    }

    private func cartHeader(_ row: Row) throws -> Header {
        guard let status = OrderStatus(rawValue: row.string(4)) else {
            throw StorageError.damaged(
                path: path, message: "carts.status of order \(row.int64(0)) holds '\(row.string(4))'")
        }
        var cart = Cart(
            id: row.int64(0), ref: row.optionalString(1), customer: row.optionalString(2),
            note: row.optionalString(3), status: status, items: [], currency: row.string(5),
            createdAt: Timestamp(iso8601: row.string(6)) ?? Timestamp(millisecondsSince1970: 0),
            updatedAt: Timestamp(iso8601: row.string(7)) ?? Timestamp(millisecondsSince1970: 0), history: [])
        cart.fulfilment = Self.fulfilment(row, from: 8)
        return Header(cart: cart, parts: row.int64(16))
    }

    /// Fills in the items and history of many orders with one query each (`json_each` over the ids), instead of
    /// two queries per order.
    private func complete(_ headers: [Header]) throws -> [Cart] {
        guard headers.count > 1 else { return try headers.map(complete) }
        let ids = "[" + headers.map { String($0.cart.id) }.joined(separator: ",") + "]"
        var items: [Int64: [CartItem]] = [:]
        try statement(
            """
            SELECT id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price, tax, tax_bp, note, cart_id
            FROM pizzas WHERE cart_id IN (SELECT value FROM json_each(?)) ORDER BY cart_id, id
            """
        ).forEach([ids]) { row in items[row.int64(12), default: []].append(Self.item(row)) }
        var history: [Int64: [StatusChange]] = [:]
        try historyStatement(
            """
            SELECT from_status, to_status, at, actor_uid, actor_name, actor_pid, reason, actor_device, actor_address,
                   cart_id
            FROM status_history WHERE cart_id IN (SELECT value FROM json_each(?)) ORDER BY cart_id, id
            """,
            before5: """
                SELECT from_status, to_status, at, actor_uid, actor_name, actor_pid, reason, NULL, NULL, cart_id
                FROM status_history WHERE cart_id IN (SELECT value FROM json_each(?)) ORDER BY cart_id, id
                """
        ).forEach([ids]) { row in history[row.int64(9), default: []].append(Self.change(row)) }
        let whole = try wholeParts(of: headers)
        return headers.map { header in
            var cart = header.cart
            cart.items = items[cart.id] ?? []
            cart.history = history[cart.id] ?? []
            if let parts = whole[cart.id] { parts.fill(&cart) }
            return cart
        }
    }

    private static func item(_ row: Row) -> CartItem {
        let extras = row.string(6)
        return CartItem(
            id: row.int64(0),
            pizza: Pizza(
                kind: row.string(1), size: Size(rawValue: row.string(2)) ?? .medium, crust: row.string(3),
                chiliSauce: row.bool(4), ketchup: row.bool(5),
                extras: extras.isEmpty ? [] : extras.split(separator: ",").map(String.init),
                quantity: row.int(7), unitPrice: row.int64(8),
                tax: TaxRate(name: row.string(9), basisPoints: row.int64(10)), note: row.optionalString(11)))
    }

    private static func change(_ row: Row) -> StatusChange {
        StatusChange(
            from: row.optionalString(0).flatMap(OrderStatus.init(rawValue:)),
            to: OrderStatus(rawValue: row.string(1)) ?? .open,
            at: Timestamp(iso8601: row.string(2)) ?? Timestamp(millisecondsSince1970: 0),
            actor: ChangeActor(
                uid: UInt32(truncatingIfNeeded: row.int64(3)), name: row.string(4),
                pid: Int32(truncatingIfNeeded: row.int64(5)), device: row.optionalString(7),
                address: row.optionalString(8)),
            reason: row.optionalString(6))
    }

    private func complete(_ header: Header) throws -> Cart {
        var cart = header.cart
        cart.items = try statement(
            literal: """
                SELECT id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price, tax, tax_bp, note
                FROM pizzas WHERE cart_id = ? ORDER BY id
                """
        ).map([cart.id], Self.item)
        cart.history = try historyStatement(
            """
            SELECT from_status, to_status, at, actor_uid, actor_name, actor_pid, reason, actor_device, actor_address
            FROM status_history WHERE cart_id = ? ORDER BY id
            """,
            before5: """
                SELECT from_status, to_status, at, actor_uid, actor_name, actor_pid, reason, NULL, NULL
                FROM status_history WHERE cart_id = ? ORDER BY id
                """
        ).map([cart.id], Self.change)
        if header.parts != 0, let parts = try wholeParts(of: [header])[cart.id] { parts.fill(&cart) }
        return cart
    }

    /// The history's statement; on a database from before schema 5 (only ever opened by a migration's own test, or a
    /// backup read before it is migrated), the one without the device columns, which reads them as NULL. The
    /// current schema prepares the first and never pays for the second.
    private func historyStatement(_ sql: StaticString, before5 old: StaticString) throws -> Statement {
        do {
            return try statement(literal: sql)
        } catch {
            return try statement(literal: old)
        }
    }
}
