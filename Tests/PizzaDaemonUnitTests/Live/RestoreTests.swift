import DaemonHarness
import Foundation
import PizzaTesting
import Testing

/// `pizzad restore …` as an operator types it, with `environment` (the shop's replication settings).
private func restore(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
    try run(
        Binaries.pizzad, ["restore"] + arguments, environment: PizzadEnvironment.scrubbed(overriding: environment),
        timeout: 300)
}

/// Every row a restore must bring back, table by table, in a fixed order (`replication_state` apart: its mark
/// moves with shipping).
private func dump(_ database: String) throws -> [String: String] {
    var tables: [String: String] = [:]
    for (table, order) in [
        ("carts", "id"), ("pizzas", "id"), ("status_history", "id"), ("audit_log", "seq"), ("order_items", "id"),
        ("discounts", "id"), ("fees", "id"), ("payments", "id"), ("availability", "item"), ("z_reports", "number"),
    ] {
        tables[table] = try sqlite3(database, "SELECT * FROM \(table) ORDER BY \(order)")
    }
    return tables
}

/// The database's files, byte for byte, and what else is in its folder: what a refused restore must not change.
private func snapshot(_ database: String) throws -> [String: Data] {
    let folder = (database as NSString).deletingLastPathComponent
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder)
    where name.hasPrefix((database as NSString).lastPathComponent) {
        files[name] = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
    }
    return files
}

/// A stopped shop's folder with a database of `orders` orders made by a real pizzad.
private func stoppedShop(orders: Int, environment: [String: String] = [:]) async throws -> LiveDaemon {
    let shop = try LiveDaemon(environment: environment)
    try await loadOrders(shop, orders: orders)
    #expect(try shop.stop() == 0)
    return shop
}

@Suite(
    "pizzad restore from a backup: checked before anything is replaced, the same database back", .serialized,
    .offThePool)
struct RestoreFromBackupTests {
    @Test(
        "a backup restored up to an earlier entry is, table by table, the backup taken then; restored whole it answers order.get as before and the next change chains on"
    )
    func pointInTimeAndWhole() async throws {
        let shop = try LiveDaemon()
        try await loadOrders(shop, orders: 40)
        let early = shop.directory + "/early.sqlite"
        #expect(try shop.pizzactl(["db", "backup", early]).status == 0)
        let earlySeq = try sqlite3(early, "SELECT max(seq) FROM audit_log")
        let earlyAt = try sqlite3(early, "SELECT at FROM audit_log WHERE seq = \(earlySeq)")
        // The next change a millisecond later at least, so that --until at this time ends where the backup does.
        try await Task.sleep(for: .milliseconds(5))
        try await loadOrders(shop, orders: 40)
        #expect(try shop.pizzactl(["order", "cancel", "41", "--reason", "no show"]).status == 0)
        let late = shop.directory + "/late.sqlite"
        #expect(try shop.pizzactl(["db", "backup", late]).status == 0)
        let shown = try shop.pizzactl(["--json", "order", "show", "41"]).stdout
        #expect(try shop.stop() == 0)

        // Up to the early backup's last entry, by number and by time: the early backup, row for row.
        let bySeq = shop.directory + "/by-seq.sqlite"
        let dryRun = try restore(["--from-backup", late, "--until-seq", earlySeq, "--database", bySeq, "--dry-run"])
        #expect(dryRun.status == 0 && dryRun.stdout.contains("would restore"), "\(dryRun)")
        #expect(dryRun.stdout.contains("last entry \(earlySeq)"), "\(dryRun)")
        #expect(!FileManager.default.fileExists(atPath: bySeq), "a dry run wrote the database")
        let restored = try restore(["--from-backup", late, "--until-seq", earlySeq, "--database", bySeq])
        #expect(restored.status == 0, "\(restored)")
        #expect(try dump(bySeq) == (try dump(early)))
        let byTime = shop.directory + "/by-time.sqlite"
        #expect(try restore(["--from-backup", late, "--until", earlyAt, "--database", byTime]).status == 0)
        #expect(try dump(byTime) == (try dump(early)))
        #expect(
            try sqlite3(bySeq, "SELECT shop_key FROM replication_state")
                == (try sqlite3(early, "SELECT shop_key FROM replication_state")))

        // Whole, over the shop's own database (kept aside): the same answers, and the next change chains on.
        let before = try dump(shop.database)
        let refused = try restore(["--from-backup", late, "--database", shop.database])
        #expect(refused.status == 73 && refused.stderr.contains("--force"), "\(refused)")
        let forced = try restore(["--from-backup", late, "--database", shop.database, "--force"])
        #expect(forced.status == 0 && forced.stdout.contains("moved to"), "\(forced)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: shop.directory).filter {
            $0.hasPrefix("pizzad.sqlite.replaced-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
        }
        #expect(aside.count == 1, "\(aside)")
        #expect(try dump(shop.directory + "/" + (aside.first ?? "")) == before, "the replaced database changed")
        #expect(try dump(shop.database) == (try dump(late)))
        let again = try LiveDaemon(directory: shop.directory)
        #expect(try again.pizzactl(["--json", "order", "show", "41"]).stdout == shown)
        #expect(try again.pizzactl(["audit", "verify"]).status == 0)
        #expect(try again.pizzactl(["db", "check"]).status == 0)
        let last = try sqlite3(again.database, "SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1")
        #expect(try again.pizzactl(["order", "new", "--customer", "after", "--place", "cheese"]).status == 0)
        #expect(try sqlite3(again.database, "SELECT prev_hash FROM audit_log ORDER BY seq DESC LIMIT 1") == last)
        #expect(try again.pizzactl(["audit", "verify"]).status == 0)

        // With the daemon running, nothing happens: it holds the database.
        let busy = try restore(["--from-backup", late, "--database", again.database, "--force"])
        // Named by its process (here the test's own: the daemon runs in it) and pid.
        #expect(busy.status == 75 && busy.stderr.contains(", pid \(again.pid))"), "\(busy)")
        // --if-db-not-exists leaves a database in place alone, and restores where there is none.
        let kept = try restore(["--from-backup", late, "--database", again.database, "--if-db-not-exists"])
        #expect(kept.status == 0 && kept.stdout.contains("nothing restored"), "\(kept)")
        #expect(try again.stop() == 0)
        let fresh = shop.directory + "/new-machine/pizzad.sqlite"
        #expect(try restore(["--from-backup", late, "--database", fresh, "--if-db-not-exists"]).status == 0)
        #expect(try dump(fresh) == (try dump(late)))
    }

    @Test(
        "bad backups (missing, empty, not SQLite, another program's, truncated, damaged, a newer schema, an edited audit entry) are named errors with exit 65, and the database in place is untouched"
    )
    func badBackups() async throws {
        let shop = try await stoppedShop(orders: 30)
        let folder = shop.directory
        let good = folder + "/good.sqlite"
        #expect(try restore(["--from-backup", shop.database, "--database", good]).status == 0)
        func copy(_ name: String, _ change: (String) throws -> Void) throws -> String {
            let path = folder + "/" + name
            try FileManager.default.copyItem(atPath: good, toPath: path)
            try change(path)
            return path
        }
        let goodData = try Data(contentsOf: URL(fileURLWithPath: good))
        let empty = folder + "/empty.sqlite"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let text = folder + "/notes.txt"
        _ = FileManager.default.createFile(atPath: text, contents: Data("not a database\n".utf8))
        let foreign = folder + "/foreign.sqlite"
        _ = try sqlite3(foreign, "CREATE TABLE t (a); INSERT INTO t VALUES (1)")
        let truncated = folder + "/truncated.sqlite"
        _ = FileManager.default.createFile(atPath: truncated, contents: goodData.prefix(goodData.count / 2))
        let damaged = try copy("damaged.sqlite") { path in
            var bytes = goodData
            // Every page but the first (the header and schema) overwritten in its middle.
            let pageSize = Int(try sqlite3(good, "PRAGMA page_size")) ?? 4096
            for page in stride(from: pageSize, to: bytes.count, by: pageSize) {
                for offset in 100..<400 where page + offset < bytes.count { bytes[page + offset] = 0xA5 }
            }
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        let newer = try copy("newer.sqlite") { path in
            _ = try sqlite3(
                path,
                "INSERT INTO schema_migrations VALUES (99, '0099_future.sql', '\(String(repeating: "f", count: 64))', 'x')"
            )
        }
        let edited = try copy("edited.sqlite") { path in
            _ = try sqlite3(
                path,
                "DROP TRIGGER audit_log_no_update; UPDATE audit_log SET actor_name = 'mallory' WHERE seq = 3")
        }
        let cases: [(file: String, says: String)] = [
            (folder + "/missing.sqlite", "no backup file"),
            (empty, "the file is empty"),
            (text, "not an SQLite database"),
            (foreign, "another program's"),
            (truncated, "damaged"),
            (damaged, "damaged"),
            (newer, "newer pizzad"),
            (edited, "audit chain is broken"),
        ]
        let before = try snapshot(shop.database)
        for (file, says) in cases {
            let refused = try restore(["--from-backup", file, "--database", shop.database, "--force"])
            #expect(refused.status == 65, "\(file): \(refused)")
            #expect(refused.stderr.contains(says), "\(file): \(refused.stderr)")
            #expect(try snapshot(shop.database) == before, "\(file): the database in place changed")
        }
        let usage = try restore(["--from-backup", good, "--until-seq", "soon", "--database", shop.database])
        #expect(usage.status == 64 && usage.stderr.contains("--until-seq"), "\(usage)")
        let both = try restore(["--from-backup", good, "--from-central"])
        #expect(both.status == 64, "\(both)")
        #expect(try snapshot(shop.database) == before)
    }
}

@Suite("pizzad restore onto a full disk", .serialized, .enabled(if: canMount), .offThePool)
struct RestoreOntoFullDiskTests {
    @Test(
        "a restore that fills the disk fails by name, removes its partial copy and leaves the database in place as it was"
    )
    func fullDisk() async throws {
        let shop = try await stoppedShop(orders: 400)
        let backup = shop.directory + "/big.sqlite"
        #expect(try restore(["--from-backup", shop.database, "--database", backup]).status == 0)
        let small = shop.directory + "/small.sqlite"
        #expect(
            try restore(["--from-backup", shop.database, "--until-seq", "3", "--database", small]).status == 0)
        let disk = shop.directory + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let size = (try FileManager.default.attributesOfItem(atPath: backup)[.size] as? Int ?? 0) / 1024
        let mounted = try run("mount", ["-t", "tmpfs", "-o", "size=\(size / 2 + 200)k", "tmpfs", disk])
        try #require(mounted.status == 0, "\(mounted)")
        defer { _ = try? run("umount", ["-l", disk]) }
        let database = disk + "/pizzad.sqlite"
        try FileManager.default.copyItem(atPath: small, toPath: database)
        let before = try snapshot(database)
        for arguments in [["--from-backup", backup], ["--from-backup", shop.database, "--until-seq", "600"]] {
            let full = try restore(arguments + ["--database", database, "--force"])
            #expect(full.status == 1 && full.stderr.contains("full"), "\(full)")
            #expect(full.stderr.contains("nothing was changed"), "\(full)")
            #expect(try snapshot(database) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk) == ["pizzad.sqlite"])
        }
    }
}

@Suite(
    "pizzad restore from the centre: a dead shop rebuilt from its shipped history, shipping resumed exactly once",
    .serialized, .enabled(if: postgresMissing == nil), .offThePool)
struct RestoreFromCentralTests {
    @Test(
        "a shop under load ships, its disk dies, restore --from-central rebuilds it row for row, the daemon restarts, and shipping resumes with no gap and no duplicate"
    )
    func deadDisk() async throws {
        let centre = try Centre()
        let environment = try centre.shop("oslo", batchSize: 50)
        let shop = try PizzadProcess(environment: environment)
        try await loadOrders(shop, clients: 8, orders: 800)
        try await waitUntilShipped(shop)
        let before = try dump(shop.database)
        let key = try sqlite3(shop.database, "SELECT shop_key FROM replication_state")
        let shown = try shop.pizzactl(["--json", "order", "show", "77"]).stdout
        _ = try shop.stop(SIGKILL)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: shop.database + suffix) }

        let planned = try restore(
            ["--from-central", "--database", shop.database, "--dry-run"], environment: environment)
        #expect(planned.status == 0 && planned.stdout.contains("would restore"), "\(planned)")
        #expect(planned.stdout.contains("800 orders"), "\(planned)")
        #expect(!FileManager.default.fileExists(atPath: shop.database))
        let restored = try restore(["--from-central", "--database", shop.database], environment: environment)
        #expect(restored.status == 0, "\(restored)")
        #expect(try dump(shop.database) == before, "the rebuilt tables differ from the shop's")
        let entries = before["audit_log"]?.split(separator: "\n").count ?? 0
        #expect(
            try sqlite3(shop.database, "SELECT shop_key, shipped_seq FROM replication_state") == "\(key)|\(entries)")

        let again = try PizzadProcess(environment: environment, directory: shop.directory)
        #expect(try again.pizzactl(["--json", "order", "show", "77"]).stdout == shown)
        #expect(try again.pizzactl(["audit", "verify"]).status == 0)
        #expect(try again.pizzactl(["db", "check"]).status == 0)
        try await loadOrders(again, orders: 40)
        try await waitUntilShipped(again)
        #expect(try centre.entries("oslo") == (try localEntries(again)), "not exactly once after the restore")
        let status = try replicationStatus(again)
        #expect(status["lastErrorKind"] == nil || status["lastErrorKind"] is NSNull, "\(status)")
        let verified = try again.pizzactl(["--timeout", "60", "replication", "verify"])
        #expect(verified.status == 0, "\(verified)")
        #expect(try again.stop() == 0)
    }

    @Test(
        "a shop's whole orders come back from the centre row for row: products, fulfilment, discounts, fees, payments")
    func wholeOrders() async throws {
        let centre = try Centre()
        let environment = try centre.shop("bergen")
        let shop = try PizzadProcess(
            config: """
                menu:
                  taxes: {food: 1500, drinks: 2500}
                  pizzaTax: food
                  products:
                    cola-033: {name: Cola 0.33 l, category: drinks, price: 350, tax: drinks}
                  fees:
                    delivery: {amount: 690, tax: drinks}
                """, environment: environment)
        let address = ["--delivery", "--phone", "55 1", "--address", "Bryggen 1, 5003 Bergen", "--due", "18:45"]
        #expect(
            try shop.pizzactl(["order", "new", "--place", "chicken:L,note=well done", "cola-033,qty=2"] + address)
                .status == 0)
        #expect(try shop.pizzactl(["order", "new", "--table", "4", "cheese", "cola-033"]).status == 0)
        #expect(try shop.pizzactl(["order", "discount", "1", "--amount", "3.10", "--reason", "voucher"]).status == 0)
        #expect(
            try shop.pizzactl(["order", "discount", "2", "--percent", "20", "--item", "3", "--reason", "staff"]).status
                == 0)
        #expect(try shop.pizzactl(["order", "pay", "1", "card", "20", "--ref", "T-9"]).status == 0)
        #expect(try shop.pizzactl(["order", "refund", "1", "7", "4.50", "--reason", "cold"]).status == 0)
        #expect(try shop.pizzactl(["order", "fulfilment", "2", "--delivery"] + address.dropFirst()).status == 0)
        // What belongs to no order comes back too: an item off the menu, and a Z (its ref in the chain).
        #expect(try shop.pizzactl(["menu", "off", "olives"]).status == 0)
        #expect(try shop.pizzactl(["report", "z", "--ref", "bergen-day-1"]).status == 0)
        try await waitUntilShipped(shop)
        let before = try dump(shop.database)
        #expect(before["availability"]?.hasPrefix("olives|0|") == true, "\(before["availability"] ?? "")")
        #expect(before["z_reports"]?.contains("bergen-day-1") == true)
        #expect(before["payments"]?.split(separator: "\n").count == 2 && before["discounts"]?.isEmpty == false)
        let shown = try (1...2).map { try shop.pizzactl(["--json", "order", "show", String($0)]).stdout }
        _ = try shop.stop(SIGKILL)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: shop.database + suffix) }
        let restored = try restore(["--from-central", "--database", shop.database], environment: environment)
        #expect(restored.status == 0, "\(restored)")
        #expect(try dump(shop.database) == before, "the rebuilt tables differ from the shop's")
        let again = try PizzadProcess(environment: environment, directory: shop.directory)
        #expect(try (1...2).map { try again.pizzactl(["--json", "order", "show", String($0)]).stdout } == shown)
        #expect(try again.pizzactl(["audit", "verify"]).status == 0)
        #expect(try again.pizzactl(["report", "verify", "1"]).status == 0)
        let refused = try again.pizzactl(["order", "new", "cheese,extra=olives"])
        #expect(refused.status == 1 && refused.stderr.contains("not available"), "still off after the restore")
        let z = try again.pizzactl(["report", "z", "--ref", "bergen-day-1"])
        #expect(z.stdout.contains("Z report 1"), "the ref restored with its Z closes nothing more: \(z)")
        #expect(try again.stop() == 0)
    }

    @Test(
        "point in time from the centre: --until-seq and --until restore only up to the entry asked, and say the centre is ahead"
    )
    func pointInTime() async throws {
        let centre = try Centre()
        let environment = try centre.shop("tromso")
        let shop = try LiveDaemon(environment: environment)
        // One client: every entry later than the one before, so "up to a time" is one prefix of the history.
        try await loadOrders(shop, clients: 1, orders: 60)
        try await waitUntilShipped(shop)
        #expect(try shop.stop() == 0)
        let all = try localEntries(shop).split(separator: "\n")
        let bySeq = shop.directory + "/seq.sqlite"
        let result = try restore(
            ["--from-central", "--until-seq", "50", "--database", bySeq], environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("the centre holds entries 51…\(all.count)"), "\(result)")
        #expect(try localEntries(bySeq) == all.prefix(50).joined(separator: "\n"))
        #expect(try sqlite3(bySeq, "SELECT shipped_seq FROM replication_state") == "50")
        let at = try sqlite3(shop.database, "SELECT at FROM audit_log WHERE seq = 70")
        let last = try sqlite3(shop.database, "SELECT max(seq) FROM audit_log WHERE at <= '\(at)'")
        let byTime = shop.directory + "/time.sqlite"
        #expect(
            try restore(["--from-central", "--until", at, "--database", byTime], environment: environment).status == 0)
        #expect(try sqlite3(byTime, "SELECT max(seq) FROM audit_log") == last)
        #expect(try run("sqlite3", [byTime, "PRAGMA integrity_check"]).stdout == "ok\n")
    }

    @Test(
        "restored from an old backup, the shop diverges; the error names the way back, and restore --from-central --force heals it: shipping resumes, exactly once"
    )
    func divergedHeals() async throws {
        let centre = try Centre()
        let environment = try centre.shop("bergen")
        let shop = try LiveDaemon(environment: environment)
        try await loadOrders(shop, orders: 10)
        try await waitUntilShipped(shop)
        let backup = shop.directory + "/old-copy.sqlite"
        #expect(try shop.pizzactl(["db", "backup", backup]).status == 0)
        try await loadOrders(shop, orders: 10)
        try await waitUntilShipped(shop)
        #expect(try shop.stop() == 0)
        let central = try centre.entries("bergen")

        // The old copy goes back with the tool, and the kitchen goes on: new changes, old numbers.
        let old = try restore(
            ["--from-backup", backup, "--database", shop.database, "--force"], environment: environment)
        #expect(old.status == 0 && old.stdout.contains("shipping from this copy stops as diverged"), "\(old)")
        let diverged = try LiveDaemon(environment: environment, directory: shop.directory)
        try await loadOrders(diverged, orders: 3)
        let status = try await waitForStatus(diverged, "diverged") { $0["state"] as? String == "stopped" }
        #expect((status["lastError"] as? String ?? "").contains("pizzad restore --from-central --force"), "\(status)")

        let busy = try restore(["--from-central", "--database", shop.database, "--force"], environment: environment)
        #expect(busy.status == 75, "\(busy)")
        #expect(try diverged.stop() == 0)
        let healed = try restore(["--from-central", "--database", shop.database, "--force"], environment: environment)
        #expect(healed.status == 0 && healed.stdout.contains("moved to"), "\(healed)")
        #expect(try localEntries(shop.database) == central)
        let again = try LiveDaemon(environment: environment, directory: shop.directory)
        try await loadOrders(again, orders: 5)
        try await waitUntilShipped(again)
        #expect(try centre.entries("bergen") == (try localEntries(again)))
        let verified = try again.pizzactl(["--timeout", "60", "replication", "verify"])
        #expect(verified.status == 0, "\(verified)")
        #expect(try again.stop() == 0)
    }

    @Test(
        "a centre with a gap or a wrong hash, another shop's id, an unknown shop, an unreachable centre: named errors, non-zero exits, the database in place untouched"
    )
    func badCentres() async throws {
        let centre = try Centre()
        let environment = try centre.shop("kiruna")
        let shop = try LiveDaemon(environment: environment)
        try await loadOrders(shop, orders: 20)
        try await waitUntilShipped(shop)
        #expect(try shop.stop() == 0)
        // Another shop, registered to its own role (as its first batch would register it).
        _ = try centre.shop("lulea")
        try centre.sql(
            "INSERT INTO shops (shop_id, shop_key, role_name, cursor_hash) VALUES ('lulea', repeat('a', 32), 'shop_lulea', repeat('0', 64))"
        )
        let before = try snapshot(shop.database)
        func refused(_ environment: [String: String], _ code: Int32, _ says: String) throws {
            let result = try restore(
                ["--from-central", "--database", shop.database, "--force"], environment: environment)
            #expect(result.status == code, "\(says): \(result)")
            #expect(result.stderr.contains(says), "\(result.stderr)")
            #expect(try snapshot(shop.database) == before, "\(says): the database in place changed")
        }
        // Another shop's id, with this shop's role; an id the centre does not know.
        var other = environment
        other["PIZZAD_REPLICATION_SHOP_ID"] = "lulea"
        try refused(other, 65, "ships as role shop_lulea, not shop_kiruna")
        var unknown = environment
        unknown["PIZZAD_REPLICATION_SHOP_ID"] = "nowhere"
        try refused(unknown, 65, "has no shop nowhere")
        // An unreachable centre: a port nothing listens on.
        var away = environment
        away["PIZZAD_REPLICATION_POSTGRES_PORT"] = "9"
        away["PIZZAD_REPLICATION_TIMEOUT_SECONDS"] = "3"
        try refused(away, 69, "cannot reach PostgreSQL")
        // A wrong hash (an order changed centrally), then a gap (an entry deleted).
        try centre.sql(
            "UPDATE order_events SET after = jsonb_set(after, '{customer}', '\"mallory\"') WHERE shop_id = 'kiruna' AND seq = 7"
        )
        try refused(environment, 65, "broken at entry 7: its fields do not give its hash")
        try centre.sql("DELETE FROM order_events WHERE shop_id = 'kiruna' AND seq = 7")
        try refused(environment, 65, "entries 7…7 are missing")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: shop.directory).filter {
            $0.contains(".restoring") || $0.contains(".replaced-")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
