import PizzaCore
import SQLite

/// Reading the rest of a shop's whole order back (CONTRACT section 17): its product lines, discounts, fees and
/// payments, each table asked only for the orders whose `carts.parts` says it holds rows for them.
extension Database {
    /// An order's rows from the whole order's tables.
    struct WholeParts {
        var products: [CartProduct] = []
        var discounts: [Discount] = []
        var fees: [Fee] = []
        var payments: [Payment] = []

        func fill(_ cart: inout Cart) {
            cart.products = products
            cart.discounts = discounts
            cart.fees = fees
            cart.payments = payments
        }
    }

    /// The fulfilment in the `carts` columns from `first` on: fulfilment, phone, street, postcode, city,
    /// address_notes, dine_table, due_at.
    static func fulfilment(_ row: Row, from first: Int32) -> Fulfilment {
        let type = Fulfilment.Kind(rawValue: row.string(first)) ?? .pickup
        let phone = row.optionalString(first + 1)
        let street = row.optionalString(first + 2)
        let table = row.optionalString(first + 6)
        let due = row.optionalString(first + 7).flatMap(Timestamp.init(iso8601:))
        if type == .pickup, phone == nil, street == nil, table == nil, due == nil { return .pickup }
        let address = street.map {
            Fulfilment.Address(
                street: $0, postcode: row.optionalString(first + 3) ?? "", city: row.optionalString(first + 4) ?? "",
                notes: row.optionalString(first + 5))
        }
        return Fulfilment(type: type, phone: phone, address: address, table: table, dueAt: due)
    }

    /// The whole order's rows of the orders in `headers` that have any, by order id. One order (a change's, in the
    /// writer) is looked up by its id; several by a `json_each` over theirs.
    func wholeParts(of headers: [Header]) throws -> [Int64: WholeParts] {
        var parts: [Int64: WholeParts] = [:]
        let one = headers.count == 1
        func ids(_ bit: Int64) -> (any SQLBindable)? {
            let ids = headers.filter { $0.parts & bit != 0 }.map(\.cart.id)
            if ids.isEmpty { return nil }
            if one { return ids[0] }
            return "[" + ids.map(String.init).joined(separator: ",") + "]"
        }
        func statement(_ single: StaticString, _ many: StaticString) throws -> Statement {
            try self.statement(literal: one ? single : many)
        }
        if let ids = ids(1) {
            try statement(
                """
                SELECT id, product, name, category, quantity, options, unit_price, tax, tax_bp, note, cart_id
                FROM order_items WHERE cart_id = ? ORDER BY id
                """,
                """
                SELECT id, product, name, category, quantity, options, unit_price, tax, tax_bp, note, cart_id
                FROM order_items WHERE cart_id IN (SELECT value FROM json_each(?)) ORDER BY cart_id, id
                """
            ).forEach([ids]) { row in
                let options = row.string(5)
                let product = Product(
                    product: row.string(1), name: row.string(2), category: row.string(3), quantity: row.int(4),
                    options: options.isEmpty ? [] : options.split(separator: ",").map(String.init),
                    unitPrice: row.int64(6), tax: TaxRate(name: row.string(7), basisPoints: row.int64(8)),
                    note: row.optionalString(9))
                parts[row.int64(10), default: WholeParts()].products.append(
                    CartProduct(id: row.int64(0), product: product))
            }
        }
        if let ids = ids(2) {
            try statement(
                """
                SELECT id, amount, percent, item_id, reason, at, actor_uid, actor_name, actor_pid, actor_device,
                       actor_address, cart_id
                FROM discounts WHERE cart_id = ? ORDER BY id
                """,
                """
                SELECT id, amount, percent, item_id, reason, at, actor_uid, actor_name, actor_pid, actor_device,
                       actor_address, cart_id
                FROM discounts WHERE cart_id IN (SELECT value FROM json_each(?)) ORDER BY cart_id, id
                """
            ).forEach([ids]) { row in
                let discount = Discount(
                    id: row.int64(0), amount: row.int64(1), percent: row.optionalInt64(2).map { Int($0) },
                    item: row.optionalInt64(3), reason: row.string(4), by: Self.actor(row, from: 6),
                    at: Timestamp(iso8601: row.string(5)) ?? Timestamp(millisecondsSince1970: 0))
                parts[row.int64(11), default: WholeParts()].discounts.append(discount)
            }
        }
        if let ids = ids(4) {
            try statement(
                "SELECT kind, amount, tax, tax_bp, cart_id FROM fees WHERE cart_id = ? ORDER BY id",
                """
                SELECT kind, amount, tax, tax_bp, cart_id
                FROM fees WHERE cart_id IN (SELECT value FROM json_each(?)) ORDER BY cart_id, id
                """
            ).forEach([ids]) { row in
                let fee = Fee(
                    kind: row.string(0), amount: row.int64(1),
                    tax: TaxRate(name: row.string(2), basisPoints: row.int64(3)))
                parts[row.int64(4), default: WholeParts()].fees.append(fee)
            }
        }
        if let ids = ids(8) {
            try statement(
                """
                SELECT id, tender, amount, at, ref, refunds, reason, actor_uid, actor_name, actor_pid, actor_device,
                       actor_address, cart_id
                FROM payments WHERE cart_id = ? ORDER BY id
                """,
                """
                SELECT id, tender, amount, at, ref, refunds, reason, actor_uid, actor_name, actor_pid, actor_device,
                       actor_address, cart_id
                FROM payments WHERE cart_id IN (SELECT value FROM json_each(?)) ORDER BY cart_id, id
                """
            ).forEach([ids]) { row in
                let payment = Payment(
                    id: row.int64(0), tender: Tender(rawValue: row.string(1)) ?? .cash, amount: row.int64(2),
                    at: Timestamp(iso8601: row.string(3)) ?? Timestamp(millisecondsSince1970: 0),
                    by: Self.actor(row, from: 7), ref: row.optionalString(4), refunds: row.optionalInt64(5),
                    reason: row.optionalString(6))
                parts[row.int64(12), default: WholeParts()].payments.append(payment)
            }
        }
        return parts
    }

    /// The actor in the columns from `first` on: uid, name, pid, device, address.
    private static func actor(_ row: Row, from first: Int32) -> ChangeActor {
        ChangeActor(
            uid: UInt32(truncatingIfNeeded: row.int64(first)), name: row.string(first + 1),
            pid: Int32(truncatingIfNeeded: row.int64(first + 2)), device: row.optionalString(first + 3),
            address: row.optionalString(first + 4))
    }
}
