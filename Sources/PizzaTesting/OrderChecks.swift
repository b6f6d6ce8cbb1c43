import Foundation
public import SQLite

/// What the crash loop and the power-cut runs check in a database that survived a fault.
public enum OrderChecks {
    public static let statuses = ["open", "placed", "preparing", "baking", "boxed", "shipped", "delivered"]

    /// Queries naming orders that are only partly written.
    public static let halfThere = [
        // An open cart may be empty (order.create without items); a placed one never is.
        (
            "placed without pizzas",
            """
            SELECT id FROM carts c
            WHERE c.status <> 'open' AND NOT EXISTS (SELECT 1 FROM pizzas p WHERE p.cart_id = c.id)
            """
        ),
        (
            "whose history ends elsewhere",
            """
            SELECT c.id FROM carts c WHERE c.status IS NOT
              (SELECT h.to_status FROM status_history h WHERE h.cart_id = c.id ORDER BY h.id DESC LIMIT 1)
            """
        ),
        (
            "whose last audit entry names another status",
            """
            SELECT c.id FROM carts c WHERE c.status IS NOT
              (SELECT a.status_after FROM audit_log a WHERE a.order_id = c.id ORDER BY a.seq DESC LIMIT 1)
            """
        ),
    ]

    /// integrity_check, foreign_key_check and the half-there queries; empty when all are clean.
    public static func problems(in db: Database) throws -> [String] {
        var problems: [String] = []
        let integrity = try db.statement("PRAGMA integrity_check").map { $0.string(0) }
        if integrity != ["ok"] { problems.append("integrity_check: \(integrity.prefix(3))") }
        let foreign = try db.statement("PRAGMA foreign_key_check").map { $0.string(0) }
        if !foreign.isEmpty { problems.append("foreign_key_check: \(foreign.prefix(3))") }
        for (what, sql) in halfThere {
            let ids = try db.statement(sql).map { $0.int64(0) }
            if !ids.isEmpty { problems.append("\(ids.count) orders \(what), e.g. \(ids.prefix(5))") }
        }
        return problems
    }
}
