import Foundation
import SQLite

/// Fills a pizzad database (created and migrated by pizzad itself) with `orders` orders of plausible history,
/// straight through SQLite: two pizzas, one history row and one audit entry each, most of them delivered.
enum BigDatabase {
    static func fill(_ path: String, orders: Int) throws {
        let db = try Database(path: path, mode: .readWrite)
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536")
        let statuses =
            "CASE WHEN i % 100 < 90 THEN 'delivered' WHEN i % 100 < 94 THEN 'cancelled' "
            + "WHEN i % 100 < 95 THEN 'placed' WHEN i % 100 < 96 THEN 'preparing' WHEN i % 100 < 97 THEN 'baking' "
            + "WHEN i % 100 < 98 THEN 'boxed' WHEN i % 100 < 99 THEN 'shipped' ELSE 'open' END"
        let time = "strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i * 30, 'unixepoch')"
        let numbers = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(orders))"
        try db.transaction {
            try db.execute(
                """
                \(numbers) INSERT INTO carts (id, ref, customer, note, status, currency, total, created_at, updated_at)
                SELECT i, NULL, 'customer ' || (i % 5000), NULL, \(statuses), 'EUR', 2130, \(time), \(time) FROM n
                """)
            try db.execute(
                """
                \(numbers) INSERT INTO pizzas (id, cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price)
                SELECT 2 * i - 1, i, 'chicken', 'L', 'classic', 0, 0, 'olives', 1, 1330 FROM n
                UNION ALL SELECT 2 * i, i, 'cheese', 'M', 'classic', 0, 0, '', 1, 800 FROM n
                """)
            try db.execute(
                """
                \(numbers) INSERT INTO status_history (cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid)
                SELECT i, NULL, 'open', \(time), 1000, 'bench', 1 FROM n
                """)
            try db.execute(
                """
                \(numbers) INSERT INTO audit_log (seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after,
                                                 reason, before, after, prev_hash, hash)
                SELECT i, \(time), 1000, 'bench', 1, 'created', i, \(statuses), NULL, NULL, '{}',
                       printf('%064d', i - 1), printf('%064d', i) FROM n
                """)
        }
        try db.checkpoint(truncate: true)
    }
}
