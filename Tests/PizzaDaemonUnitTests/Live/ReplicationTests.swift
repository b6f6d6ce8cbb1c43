import DaemonHarness
import Foundation
import PizzaClient
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

/// The statements of the operator's guide's "Head-office queries" block (docs/OPERATIONS.md, "Replication").
func headOfficeQueries() throws -> [String] {
    let readme = try String(contentsOfFile: Binaries.repository + "/docs/OPERATIONS.md", encoding: .utf8)
    guard let marker = readme.range(of: "<!-- head-office queries -->\n```sql\n"),
        let end = readme.range(of: "\n```", range: marker.upperBound..<readme.endIndex)
    else { throw HarnessError("docs/OPERATIONS.md has no head-office queries block") }
    return readme[marker.upperBound..<end.lowerBound].components(separatedBy: ";\n").map {
        $0.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n")
    }.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
}

@Suite(
    "Replication: every change shipped to a central PostgreSQL, in order, exactly once", .serialized,
    .enabled(if: postgresMissing == nil), .offThePool)
struct ReplicationTests {
    @Test("a whole order reaches the centre with the shop's figures: subtotal, total, VAT per rate, paid, balance")
    func wholeOrderAtTheCentre() async throws {
        let centre = try Centre()
        let shop = try LiveDaemon(
            config: """
                menu:
                  taxes: {food: 700, drinks: 1900}
                  pizzaTax: food
                  products:
                    cola-033: {name: Cola 0.33 l, category: drinks, price: 250, tax: drinks}
                  fees:
                    delivery: {amount: 250, tax: food}
                """, environment: try centre.shop("lyon"))
        for index in 1...3 {
            var order = ["order", "new", "--place", "chicken:L", "cola-033,qty=\(index)"]
            if index != 2 { order += ["--delivery", "--phone", "04 1", "--address", "Rue 1, 69001 Lyon"] }
            #expect(try shop.pizzactl(order).status == 0)
        }
        #expect(try shop.pizzactl(["order", "discount", "1", "--percent", "15", "--reason", "regular"]).status == 0)
        #expect(try shop.pizzactl(["order", "pay", "1", "card", "10"]).status == 0)
        #expect(try shop.pizzactl(["order", "pay", "2", "cash", "17.50"]).status == 0)
        #expect(try shop.pizzactl(["order", "cancel", "3", "--reason", "no show"]).status == 0)
        try await waitUntilShipped(shop)
        let figures = try centre.sql(
            """
            SELECT order_id || '|' || subtotal || '|' || total || '|' || paid || '|' || balance || '|'
                || (fulfilment ->> 'type') || '|' || jsonb_array_length(payments) || '|'
                || coalesce((SELECT string_agg((t ->> 'rate') || ':' || (t ->> 'gross') || ':' || (t ->> 'tax'), ','
                                               ORDER BY t ->> 'rate') FROM jsonb_array_elements(taxes) t), '')
            FROM orders WHERE shop_id = 'lyon' ORDER BY order_id
            """)
        var local: [String] = []
        for id in 1...3 {
            let order = try json(shop.pizzactl(["--json", "order", "show", String(id)]))
            let taxes = (order["taxes"] as? [[String: Any]] ?? []).map {
                "\($0["rate"] ?? ""):\($0["gross"] ?? ""):\($0["tax"] ?? "")"
            }
            let type = (order["fulfilment"] as? [String: Any])?["type"] ?? ""
            local.append(
                "\(id)|\(order["subtotal"] ?? "")|\(order["total"] ?? "")|\(order["paid"] ?? "")|\(order["balance"] ?? "")|"
                    + "\(type)|\((order["payments"] as? [Any])?.count ?? -1)|" + taxes.joined(separator: ","))
        }
        #expect(figures == local.joined(separator: "\n"))
        // Order 1: chicken L 12.50 + a cola 2.50 = 15.00, 15% off = 2.25, the fee 2.50: 15.25, 10.00 paid.
        #expect(local[0].hasPrefix("1|1500|1525|1000|525|delivery|1|"), "\(local[0])")
        #expect(local[2].hasPrefix("3|2000|0|0|0|delivery|0|"), "a cancelled order's total is 0: \(local[2])")

        // What belongs to no order ships too, and head office reads the shop's day from shop_days.
        #expect(try shop.pizzactl(["menu", "off", "cola-033"]).status == 0)
        let z = try json(shop.pizzactl(["--json", "report", "z"]))
        try await waitUntilShipped(shop)
        #expect(try centre.sql("SELECT count(*) FROM order_events WHERE shop_id = 'lyon' AND order_id IS NULL") == "2")
        let gross = (z["taxes"] as? [[String: Any]] ?? []).reduce(0) { $0 + ($1["gross"] as? Int ?? 0) }
        let day = try centre.sql(
            "SELECT number || '|' || placed || '|' || cancelled || '|' || gross || '|' || open_balance FROM shop_days WHERE shop_id = 'lyon'"
        )
        #expect(
            day
                == "1|\(z["placed"].flatMap { ($0 as? [String: Any])?["count"] } ?? "")|1|\(gross)|\(z["openBalance"] ?? "")",
            "\(day) against \(z)")
        // replication.verify asks PostgreSQL over the shop's niced shipping loop: under a warm run's heaviest load
        // (the package built beside it) it once took longer than pizzactl's 10 s default (exit 3).
        let verified = try shop.pizzactl(["--timeout", "60", "replication", "verify"])
        #expect(verified.status == 0, "\(verified)")
        #expect(try shop.stop() == 0)
    }

    @Test(
        "two shops under load ship into one PostgreSQL: the same entries and hashes, no gap, no duplicate, the same latest states"
    )
    func twoShops() async throws {
        let centre = try Centre()
        let berlin = try LiveDaemon(environment: try centre.shop("berlin"))
        let paris = try LiveDaemon(environment: try centre.shop("paris", batchSize: 7))
        async let a: Void = { try await loadOrders(berlin, orders: 240) }()
        async let b: Void = { try await loadOrders(paris, orders: 180) }()
        _ = try await (a, b)
        try await waitUntilShipped(berlin)
        try await waitUntilShipped(paris)

        for (shop, daemon) in [("berlin", berlin), ("paris", paris)] {
            let local = try localEntries(daemon)
            #expect(local.split(separator: "\n").count > 300)
            #expect(try centre.entries(shop) == local, "\(shop): central entries differ from the audit log")
            #expect(
                try centre.sql(
                    "SELECT count(*) = max(seq) AND min(seq) = 1 FROM order_events WHERE shop_id = '\(shop)'") == "t",
                "\(shop): a gap")
            let orders = "id || '|' || status || '|' || total || '|' || currency"
            #expect(
                try centre.sql(
                    "SELECT \(orders.replacingOccurrences(of: "id ||", with: "order_id ||")) FROM orders WHERE shop_id = '\(shop)' ORDER BY order_id"
                )
                    == (try sqlite3(daemon.database, "SELECT \(orders) FROM carts ORDER BY id")),
                "\(shop): central orders differ from the shop's")
            // And their items: id, kind, size and quantity of every pizza, in order.
            #expect(
                try centre.sql(
                    """
                    SELECT order_id || '|' || string_agg((i ->> 'id') || ':' || (i ->> 'kind') || ':'
                        || (i ->> 'size') || ':' || (i ->> 'quantity'), ',' ORDER BY n)
                    FROM orders, jsonb_array_elements(items) WITH ORDINALITY AS x(i, n)
                    WHERE shop_id = '\(shop)' GROUP BY order_id ORDER BY order_id
                    """)
                    == (try sqlite3(
                        daemon.database,
                        """
                        SELECT cart_id || '|' || group_concat(id || ':' || kind || ':' || size || ':' || quantity, ',')
                        FROM (SELECT * FROM pizzas ORDER BY cart_id, id) GROUP BY cart_id ORDER BY cart_id
                        """)),
                "\(shop): central items differ from the shop's pizzas")
            // The mark is written behind the batches, and at once when the shipper is caught up.
            let total = String(local.split(separator: "\n").count)
            let markDeadline = TimeLimit(seconds: 10)
            while markDeadline.remains,
                try sqlite3(daemon.database, "SELECT shipped_seq FROM replication_state") != total
            {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try sqlite3(daemon.database, "SELECT shipped_seq FROM replication_state") == total)
            let verify = try daemon.pizzactl(["--timeout", "60", "replication", "verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains("replication ok"), "\(verify.stdout)")
            let status = try daemon.pizzactl(["replication", "status"])
            #expect(
                status.stdout.contains("connected") && status.stdout.contains("backlog: 0 events"), "\(status.stdout)")
            let metrics = try daemon.pizzactl(["metrics"]).stdout
            #expect(metrics.contains("pizzad_replication_backlog_events 0"), "\(metrics)")
            #expect(metrics.contains("pizzad_replication_events_total"), "\(metrics)")
            let daemonStatus = try daemon.pizzactl(["--json", "status"]).stdout
            #expect(daemonStatus.contains("\"replication\""), "\(daemonStatus)")
        }
        // The guide's head-office queries run and add up: every order counted once per shop, a delivered order's
        // revenue, nothing late yet.
        for _ in 0..<5 where try sqlite3(berlin.database, "SELECT status FROM carts WHERE id = 1") != "delivered" {
            #expect(try berlin.pizzactl(["order", "advance", "1"]).status == 0)
        }
        #expect(try sqlite3(berlin.database, "SELECT status FROM carts WHERE id = 1") == "delivered")
        try await waitUntilShipped(berlin)
        let queries = try headOfficeQueries()
        #expect(queries.count == 4, "\(queries)")
        let perHour = try centre.sql(
            "SELECT shop_id || ':' || sum(orders) FROM (\(queries[0].trimmingCharacters(in: .init(charactersIn: ";")))) q GROUP BY shop_id ORDER BY shop_id"
        )
        #expect(perHour == "berlin:240\nparis:180", "\(perHour)")
        let revenue = try centre.sql(queries[1])
        let delivered = try sqlite3(
            berlin.database, "SELECT currency || '|' || printf('%.2f', total / 100.0) FROM carts WHERE id = 1")
        #expect(revenue == "berlin|\(delivered)|1", "\(revenue)")
        #expect(try centre.sql(queries[2]) == "")
        #expect(try centre.sql(queries[3]).split(separator: "\n").count == 2)

        // The shops' roles may call the ingest functions and read nothing.
        #expect(try centre.sql("SELECT has_table_privilege('shop_berlin', 'orders', 'SELECT')") == "f")
        #expect(try centre.sql("SELECT has_table_privilege('shop_berlin', 'order_events', 'INSERT')") == "f")
        #expect(
            try centre.sql(
                "SELECT has_function_privilege('shop_berlin', 'pizzad_ingest(text, text, jsonb)', 'EXECUTE')") == "t")
        #expect(
            try centre.sql("SELECT string_agg(shop_id || ':' || role_name, ',' ORDER BY shop_id) FROM shops")
                == "berlin:shop_berlin,paris:shop_paris")
        #expect(try berlin.stop() == 0)
        #expect(try paris.stop() == 0)
    }

    @Test(
        "TLS to the centre: with the server's certificate as replication.postgres.caFile a shop ships over TLS; without it, a named TLS error and nothing central; a caFile that is missing or holds no certificate is refused at start",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs the openssl command")
    )
    func tls() async throws {
        let centre = try Centre(tls: true)
        var trusted = try centre.shop("tls-trusted")
        trusted["PIZZAD_REPLICATION_POSTGRES_TLS"] = "require"
        trusted["PIZZAD_REPLICATION_POSTGRES_CA_FILE"] = centre.folder + "/server.crt"
        let shop = try LiveDaemon(environment: trusted)
        try await loadOrders(shop, orders: 10)
        try await waitUntilShipped(shop)
        #expect(try centre.entries("tls-trusted") == (try localEntries(shop)))
        // The shop's own session, as the server sees it: encrypted.
        #expect(
            try centre.sql(
                """
                SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                WHERE a.usename = 'shop_tls_trusted'
                """) == "t")
        #expect(try shop.stop() == 0)

        var untrusted = try centre.shop("tls-untrusted")
        untrusted["PIZZAD_REPLICATION_POSTGRES_TLS"] = "require"
        let refused = try LiveDaemon(environment: untrusted)
        try await loadOrders(refused, orders: 3)
        let status = try await waitForStatus(refused, "a TLS error") { $0["lastError"] is String }
        let message = status["lastError"] as? String ?? ""
        #expect((status["lastErrorKind"] as? String) == "unreachable", "\(status)")
        #expect(
            message.contains("TLS handshake failed") && message.contains("replication.postgres.caFile"), "\(message)")
        #expect(try centre.sql("SELECT count(*) FROM order_events WHERE shop_id = 'tls-untrusted'") == "0")
        #expect(try refused.stop() == 0)

        // A missing file, and one that holds no certificate (the key, by mistake): refused at start, named.
        for file in [centre.folder + "/no-such.crt", centre.folder + "/server.key"] {
            var bad = untrusted
            bad["PIZZAD_REPLICATION_POSTGRES_CA_FILE"] = file
            let checked = try run(Binaries.pizzad, ["--check-config"], environment: bad, directory: centre.folder)
            #expect(checked.status == 78, "\(file): \(checked)")
            #expect(checked.stderr.contains("replication.postgres.caFile"), "\(file): \(checked.stderr)")
        }
    }

    @Test(
        "replication.postgres.tls at its shipped default (prefer): plain text to a centre without TLS, TLS to one with it, and a certificate it cannot trust refused by name",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs the openssl command")
    )
    func preferredTLS() async throws {
        /// Whether every session of `role` at `centre` is encrypted ("t"), none is ("f"), or there is none ("").
        func encrypted(_ centre: Centre, _ role: String) throws -> String {
            try centre.sql(
                """
                SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                WHERE a.usename = '\(role)'
                """)
        }
        let plain = try Centre()
        let environment = try plain.shop("prefer-plain")
        #expect(environment["PIZZAD_REPLICATION_POSTGRES_TLS"] == nil, "the harness must not set the mode")
        let fallsBack = try LiveDaemon(environment: environment)
        try await loadOrders(fallsBack, orders: 5)
        try await waitUntilShipped(fallsBack)
        #expect(try plain.entries("prefer-plain") == (try localEntries(fallsBack)))
        #expect(try encrypted(plain, "shop_prefer_plain") == "f", "prefer against a centre without TLS is plain text")
        #expect(try fallsBack.stop() == 0)

        let secure = try Centre(tls: true)
        var trusted = try secure.shop("prefer-trusted")
        trusted["PIZZAD_REPLICATION_POSTGRES_CA_FILE"] = secure.folder + "/server.crt"
        let upgrades = try LiveDaemon(environment: trusted)
        try await loadOrders(upgrades, orders: 5)
        try await waitUntilShipped(upgrades)
        #expect(try encrypted(secure, "shop_prefer_trusted") == "t", "prefer takes TLS when the centre offers it")
        #expect(try upgrades.stop() == 0)

        // The centre offers TLS with a certificate the shop cannot verify: prefer does not fall back to plain text
        // (that would let anyone in the middle answer in the centre's place); it names the error and waits.
        let untrusted = try secure.shop("prefer-untrusted")
        let refused = try LiveDaemon(environment: untrusted)
        try await loadOrders(refused, orders: 3)
        let status = try await waitForStatus(refused, "a TLS error") { $0["lastError"] is String }
        let message = status["lastError"] as? String ?? ""
        #expect(message.contains("TLS handshake failed"), "\(status)")
        #expect(try secure.sql("SELECT count(*) FROM order_events WHERE shop_id = 'prefer-untrusted'") == "0")
        #expect(try refused.stop() == 0)
    }

    @Test("a batch reads only its own rows of order_events, however long the centre's history (no scan per batch)")
    func ingestCostDoesNotGrowWithHistory() async throws {
        let centre = try Centre()
        // Another shop's long history, with the planner's statistics up to date.
        try centre.sql(
            """
            INSERT INTO order_events (shop_id, seq, order_id, action, status_after, at, actor_uid, actor_name, actor_pid,
                                      after, prev_hash, hash)
            SELECT 'elsewhere', n, n, 'create', 'placed', now(), 0, 'root', 1, '{}', repeat('0', 64), repeat('1', 64)
            FROM generate_series(1, 200000) AS n;
            ANALYZE order_events;
            """)
        let shop = try LiveDaemon(environment: try centre.shop("bern", batchSize: 10))
        try await loadOrders(shop, orders: 60)
        try await waitUntilShipped(shop)
        let local = try localEntries(shop)
        // A backend's table statistics are flushed when it ends (an idle one waits up to 10 s).
        #expect(try shop.stop() == 0)
        try await Task.sleep(for: .milliseconds(500))
        let shipped = Int(try centre.sql("SELECT cursor_seq FROM shops WHERE shop_id = 'bern'")) ?? 0
        let rowsRead =
            Int(
                try centre.sql(
                    "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables WHERE relname = 'order_events'"
                )) ?? -1
        print("order_events rows read while ingesting \(shipped) entries in batches of 10: \(rowsRead)")
        #expect(shipped > 60)
        #expect(
            rowsRead >= 0 && rowsRead <= 3 * shipped,
            "ingest read \(rowsRead) rows of order_events for \(shipped) entries")
        #expect(try centre.entries("bern") == local)
    }

    @Test(
        "a new centre, its statistics taken while its tables were empty: batches find the shop's row and entries by index, not by reading tables whole"
    )
    func ingestPlansKeepToIndexes() async throws {
        let centre = try Centre()
        // The statistics of a centre just made (every table empty), kept while 5,000 shops' rows arrive, as in a
        // chain's first minute before autovacuum's first ANALYZE.
        try centre.sql(
            """
            ANALYZE shops; ANALYZE order_events; ANALYZE orders;
            ALTER TABLE shops SET (autovacuum_enabled = false);
            INSERT INTO shops (shop_id, shop_key, role_name, cursor_seq, cursor_hash)
            SELECT 'other-' || n, repeat('k', 32), 'nobody', 0, repeat('0', 64) FROM generate_series(1, 5000) AS n;
            SELECT pg_stat_reset();
            """)
        let shop = try LiveDaemon(environment: try centre.shop("bern", batchSize: 5))
        try await loadOrders(shop, orders: 40)
        try await waitUntilShipped(shop)
        // A backend's table statistics are flushed when it ends (an idle one waits up to 10 s).
        #expect(try shop.stop() == 0)
        try await Task.sleep(for: .milliseconds(500))
        let shipped = Int(try centre.sql("SELECT cursor_seq FROM shops WHERE shop_id = 'bern'")) ?? 0
        let scans = try centre.sql(
            "SELECT coalesce(sum(seq_scan), -1) || ' ' || coalesce(sum(seq_tup_read), -1) FROM pg_stat_user_tables "
                + "WHERE relname = 'shops' OR relname LIKE 'order_events%' OR relname = 'orders'")
        print("whole-table scans (and rows read by them) while ingesting \(shipped) entries in batches of 5: \(scans)")
        #expect(shipped > 40)
        #expect(scans == "0 0", "ingest scanned tables whole: \(scans)")
    }

    @Test(
        "pizzad SIGKILLed in the middle of shipping: after the restart it resumes from its mark, with no gap and no duplicate"
    )
    func killedWhileShipping() async throws {
        let centre = try Centre()
        let environment = try centre.shop("rome", batchSize: 3)
        let shopFolder = try TemporaryFolder("pizzad-it")
        defer { shopFolder.remove() }
        let directory = shopFolder.path
        try centre.server.stop()
        let first = try PizzadProcess(environment: environment, directory: directory)
        try await loadOrders(first, orders: 200)
        try centre.server.start()
        // Kill it while batches of three are going out.
        let deadline = TimeLimit(seconds: 60)
        while deadline.remains, Int(try centre.sql("SELECT count(*) FROM order_events")) ?? 0 < 30 {
            try await Task.sleep(for: .milliseconds(5))
        }
        async let more: Void = { _ = try? await loadOrders(first, clients: 2, orders: 100) }()
        try await Task.sleep(for: .milliseconds(100))
        kill(first.pid, SIGKILL)
        _ = await more
        _ = try first.waitForExit()
        let shippedBefore = try centre.sql("SELECT count(*) FROM order_events")
        let markBefore = try sqlite3(first.database, "SELECT shipped_seq FROM replication_state")
        print("killed with \(shippedBefore) entries central, \(markBefore) marked shipped locally")

        let second = try PizzadProcess(environment: environment, directory: directory)
        try await loadOrders(second, orders: 20)
        try await waitUntilShipped(second, timeout: 90)
        #expect(try centre.entries("rome") == (try localEntries(second)))
        #expect(try centre.sql("SELECT count(*) = max(seq) FROM order_events WHERE shop_id = 'rome'") == "t")
        #expect(try second.stop() == 0)
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test(
        "the central cursor set back or deleted (a failover that lost batches): the shipper re-sends and the centre heals"
    )
    func centreLostBatches() async throws {
        let centre = try Centre()
        let shop = try LiveDaemon(environment: try centre.shop("vienna"))
        try await loadOrders(shop, orders: 30)
        try await waitUntilShipped(shop)
        try centre.sql(
            "DELETE FROM order_events WHERE shop_id = 'vienna' AND seq > 10; UPDATE shops SET cursor_seq = 10 WHERE shop_id = 'vienna'"
        )
        try await loadOrders(shop, orders: 2)
        try await waitUntilShipped(shop)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try centre.entries("vienna") == (try localEntries(shop)), "set back: not healed")
        #expect(shop.output.contains("re-sending from its cursor"), "\(shop.output.suffix(2000))")

        try centre.sql(
            "DELETE FROM order_events WHERE shop_id = 'vienna'; DELETE FROM orders WHERE shop_id = 'vienna'; DELETE FROM shops WHERE shop_id = 'vienna'"
        )
        try await loadOrders(shop, orders: 2)
        let deadline = TimeLimit(seconds: 60)
        while deadline.remains, try centre.entries("vienna") != (try localEntries(shop)) {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try centre.entries("vienna") == (try localEntries(shop)), "deleted: not healed")
        #expect(
            try centre.sql("SELECT count(*) FROM orders WHERE shop_id = 'vienna'")
                == (try sqlite3(shop.database, "SELECT count(*) FROM carts")))
        let verified = try shop.pizzactl(["--timeout", "60", "replication", "verify"])
        #expect(verified.status == 0, "\(verified)")
        #expect(try shop.stop() == 0)
    }

    @Test("two databases configured with one shop id: the second stops with a shop collision and mixes nothing in")
    func shopIDCollision() async throws {
        let centre = try Centre()
        let environment = try centre.shop("zurich")
        let first = try LiveDaemon(environment: environment)
        try await loadOrders(first, orders: 5)
        try await waitUntilShipped(first)
        let before = try centre.entries("zurich")
        let second = try LiveDaemon(environment: environment)
        try await loadOrders(second, orders: 5)
        let status = try await waitForStatus(second, "a shop collision") { $0["state"] as? String == "stopped" }
        #expect((status["lastErrorKind"] as? String) == "shop_collision", "\(status)")
        #expect(
            (status["lastError"] as? String ?? "").contains("shop id zurich is taken by another pizzad database"),
            "\(status)")
        #expect(try centre.entries("zurich") == before)
        #expect(second.output.contains("shop collision"), "\(second.output.suffix(2000))")
        #expect(try first.stop() == 0)
        #expect(try second.stop() == 0)
    }

    @Test(
        "an audit entry edited in the shop's file is not shipped: everything before it arrives, then shipping stops with tampered"
    )
    func editedEntryIsNotShipped() async throws {
        let centre = try Centre()
        let shopFolder = try TemporaryFolder("pizzad-it")
        defer { shopFolder.remove() }
        let directory = shopFolder.path
        // The kitchen runs without replication first, so nothing is central yet.
        let kitchen = try LiveDaemon(directory: directory)
        try await loadOrders(kitchen, orders: 10)
        #expect(try kitchen.stop() == 0)
        let total = Int(try sqlite3(kitchen.database, "SELECT count(*) FROM audit_log")) ?? 0
        #expect(total > 12)
        // Somebody with write access changes entry 7's order (valid JSON, a lower price) and hides the trigger.
        _ = try sqlite3(
            kitchen.database,
            """
            DROP TRIGGER audit_log_no_update;
            UPDATE audit_log SET after = replace(after, '"customer":"', '"customer":"forged ') WHERE seq = 7;
            """)
        #expect(try sqlite3(kitchen.database, "SELECT count(*) FROM audit_log WHERE after LIKE '%forged%'") == "1")

        let shop = try LiveDaemon(environment: try centre.shop("porto"), directory: directory)
        let status = try await waitForStatus(shop, "tampered") { $0["state"] as? String == "stopped" }
        #expect((status["lastErrorKind"] as? String) == "tampered", "\(status)")
        #expect(
            (status["lastError"] as? String ?? "").contains("audit entry 7 was changed after it was written"),
            "\(status)")
        #expect(
            try centre.sql("SELECT coalesce(max(seq), 0) || ' ' || count(*) FROM order_events WHERE shop_id = 'porto'")
                == "6 6")
        #expect(try centre.sql("SELECT count(*) FROM order_events WHERE after::text LIKE '%forged%'") == "0")
        // The kitchen goes on taking orders.
        try await loadOrders(shop, orders: 2)
        #expect(try shop.stop() == 0)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite("Replication off: a shop without a centre", .offThePool)
struct ReplicationOffTests {
    @Test("replication status says off, verify and bad parameters are named errors, the kitchen is untouched")
    func off() async throws {
        let daemon = try LiveDaemon()
        let status = try daemon.pizzactl(["replication", "status"])
        #expect(status.status == 0 && status.stdout.contains("replication: off"), "\(status)")
        let verify = try daemon.pizzactl(["--timeout", "60", "replication", "verify"])
        #expect(verify.status == 1, "\(verify)")
        #expect(
            verify.stderr.contains("validation") && verify.stderr.contains("replication.postgres.host"), "\(verify)")
        let usage = try daemon.pizzactl(["replication", "restart"])
        #expect(usage.status == 2, "\(usage)")

        let connection = try RawConnection(path: daemon.socket)
        let off = try connection.request(#"{"jsonrpc":"2.0","id":1,"method":"replication.status"}"#)
        #expect(off.result?["enabled"] as? Bool == false, "\(off)")
        for method in ["replication.status", "replication.verify"] {
            let bad = try connection.request(#"{"jsonrpc":"2.0","id":2,"method":"\#(method)","params":{"shop":"x"}}"#)
            #expect(bad.errorCode == -32602, "\(method): \(bad)")  // invalid params, as for every method
        }
        // Nothing was written, and orders go on.
        #expect(try sqlite3(daemon.database, "SELECT shipped_seq FROM replication_state") == "0")
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        #expect(try daemon.stop() == 0)
    }
}
