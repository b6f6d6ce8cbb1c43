import Foundation
import PizzaCore
import PizzaMetrics
import PizzaProtocol
import PizzaStorage
import PizzaTesting
import PizzaWire
import Testing

@Suite("Repository over SQLite")
struct RepositoryTests {
    @Test(
        "a database the code created: the contract's tables, WAL, clean foreign keys (checked with sqlite3)"
    )
    func inspectWithSQLite3() async throws {
        let kitchen = try Kitchen()
        let cart = try await kitchen.newOrder(place: true)
        _ = try await kitchen.repository.advance(cart.id, by: Fixtures.actor)
        let tables = try Fixtures.sqlite3(
            kitchen.path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(
            tables.split(separator: "\n") == [
                "api_devices", "api_requests", "audit_log", "availability", "carts", "discounts", "fees", "order_items",
                "outbox_destinations", "payments", "pizzas", "replication_state", "schema_migrations", "status_history",
                "z_reports",
            ])
        #expect(try Fixtures.sqlite3(kitchen.path, "PRAGMA journal_mode") == "wal")
        #expect(try Fixtures.sqlite3(kitchen.path, "PRAGMA foreign_key_check") == "")
        #expect(try Fixtures.sqlite3(kitchen.path, "PRAGMA integrity_check") == "ok")
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT status FROM carts WHERE id = \(cart.id)") == "preparing")
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM status_history") == "3")
        let strict = try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM pragma_table_list WHERE strict = 1")
        #expect(strict == "15")
        let createdAt = try Fixtures.sqlite3(kitchen.path, "SELECT created_at FROM carts")
        #expect(Timestamp(iso8601: createdAt) != nil, "created_at reads as ISO-8601: \(createdAt)")
    }

    @Test("every connection setting reads back: WAL, synchronous=FULL, foreign keys")
    func settings() async throws {
        let kitchen = try Kitchen()
        let info = try kitchen.store.info()
        #expect(info.journalMode == "wal")
        #expect(info.synchronous == "FULL")
        #expect(info.schemaVersion == 8)
    }

    @Test("a change whose audit write throws leaves no row in any table")
    func auditFailureRollsBack() async throws {
        let kitchen = try Kitchen()
        let failing = RefusingSubscriber<WriteTransaction>()
        kitchen.repository.writers += failing
        await #expect(throws: RefusingSubscriber<WriteTransaction>.Refused.self) { try await kitchen.newOrder() }
        for table in ["carts", "pizzas", "status_history", "audit_log"] {
            #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM \(table)") == "0", "\(table)")
        }
        kitchen.repository.writers -= failing
        let cart = try await kitchen.newOrder()
        #expect(try kitchen.repository.cart(id: cart.id) == cart)
    }

    @Test("a change's answer is the order's wire text as its audit entry stored it, encoded once in the transaction")
    func answerReusesTheAuditText() async throws {
        let kitchen = try Kitchen()
        let pizzas = [try Fixtures.factory.makePizza("cheese"), try Fixtures.factory.makePizza("chicken")]
        let created = try await kitchen.repository.create(
            ref: "till-9", pizzas: pizzas, place: true, currency: "EUR", by: Fixtures.actor)
        let advanced = try await kitchen.repository.advance(created.cart.id, by: Fixtures.actor)
        for (seq, outcome) in [(1, created), (2, advanced)] {
            let change = try #require(outcome.change)
            // Already encoded (by the audit logger, inside the transaction): this fallback is never used.
            #expect(change.afterText.get { "not encoded yet" } == outcome.cart.wireText)
            #expect(outcome.wire == .encoded(outcome.cart.wireText))
            let stored = try Fixtures.sqlite3(kitchen.path, "SELECT after FROM audit_log WHERE seq = \(seq)")
            #expect(stored == outcome.cart.wireText)
        }
        // An idempotent retry changes nothing and is answered with the order as stored.
        let retry = try await kitchen.repository.create(
            ref: "till-9", pizzas: pizzas, currency: "EUR", by: Fixtures.actor)
        #expect(retry.change == nil && !retry.created)
        #expect(retry.wire == .encoded(try kitchen.repository.cart(id: created.cart.id).wireText))
    }

    @Test(
        "a retried ref of a recent order is answered from the read pool, with no group commit; an older one, unknown to a new repository, once the unique index refused it, by the write transaction's own lookup"
    )
    func retriedRefSkipsTheWriter() async throws {
        let kitchen = try Kitchen()
        let commits = Locked(0)
        kitchen.store.observeGroupCommits { changes, _ in commits.withLock { $0 += changes } }
        let pizza = try Fixtures.factory.makePizza("cheese")
        let first = try await kitchen.repository.create(
            ref: "till-3", pizzas: [pizza], place: true, currency: "EUR", by: Fixtures.actor)
        let committed = commits.value
        #expect(committed == 1)
        _ = try await kitchen.repository.advance(first.cart.id, by: Fixtures.actor)
        let retry = try await kitchen.repository.create(
            ref: "till-3", pizzas: [pizza, pizza], currency: "EUR", by: Fixtures.actor)
        #expect(!retry.created && retry.cart.id == first.cart.id)
        // As it is now (advanced since), as order.get would answer.
        #expect(retry.cart == (try kitchen.repository.cart(id: first.cart.id)) && retry.cart.status == .preparing)
        #expect(commits.value == committed + 1, "the retry went through a group commit")

        // A repository that has not seen the ref (a restart): the unique index refuses it, and the create's second
        // run, looking the ref up in its transaction, finds the order.
        let restarted = OrderBook(store: kitchen.store)
        let again = try await restarted.repository.create(
            ref: "till-3", pizzas: [pizza], currency: "EUR", by: Fixtures.actor)
        #expect(!again.created && again.cart.id == first.cart.id)
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM carts") == "1")
    }

    @Test(
        "concurrent changes commit in groups; one bad change fails alone, and one refused before it wrote a row costs the others nothing"
    )
    func groupCommit() async throws {
        let kitchen = try Kitchen()
        let repository = kitchen.repository
        let counting = CountingSubscriber<WriteTransaction>()
        repository.writers += counting
        let largestCommit = Locked(0)
        kitchen.store.observeGroupCommits { changes, _ in largestCommit.withLock { $0 = max($0, changes) } }
        let good = try await withThrowingTaskGroup(of: Int64?.self) { group in
            for index in 0..<64 {
                group.addTask {
                    if index % 16 == 5 {
                        // Advancing an order that does not exist is refused before it writes anything.
                        _ = try? await repository.advance(100_000 + Int64(index), by: Fixtures.actor)
                        return nil
                    }
                    return try await repository.create(
                        pizzas: [try Fixtures.factory.makePizza("cheese")], currency: "EUR", by: Fixtures.actor
                    ).cart.id
                }
            }
            var ids: [Int64] = []
            for try await id in group { if let id { ids.append(id) } }
            return ids
        }
        repository.writers -= counting
        #expect(good.count == 60)
        #expect(Set(good).count == 60)
        #expect(largestCommit.value > 1, "the changes went into group commits of more than one")
        // No transaction was rolled back and run again for the refused changes: each good change ran once.
        #expect(counting.announced.value == 60)
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM carts") == "60")
        #expect(try kitchen.store.verifyAudit().ok)
    }

    @Test("once its writes are answered, nothing of them keeps the store alive: it goes when its owner lets it go")
    func storeGoesWhenIdle() async throws {
        let directory = try TemporaryFolder("pizzad-test")
        weak var released: SQLiteOrderStore?
        do {
            let orders = OrderBook(
                store: try SQLiteOrderStore(path: directory.path + "/pizzad.sqlite", migrations: Fixtures.migrations))
            released = orders.store
            let repository = orders.repository
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<32 {
                    group.addTask {
                        _ = try await repository.create(
                            pizzas: [try Fixtures.factory.makePizza("cheese")], currency: "EUR", by: Fixtures.actor)
                    }
                }
                try await group.waitForAll()
            }
        }
        // The writer keeps the batch it committed last (each change holds its repository, which holds the store)
        // until its queue runs dry.
        let deadline = ContinuousClock.now + .seconds(10)
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil, "a committed change still holds the store")
    }

    @Test(
        "the ids a group commit counts on from the one before are read afresh after another connection committed (sqlite3), a maintenance block, or a refused change"
    )
    func carriedNumbersReadAfresh() async throws {
        let kitchen = try Kitchen()
        let first = try await kitchen.newOrder()
        #expect(first.id == 1)
        #expect(first.items.map(\.id) == [1, 2])
        // Someone adds an order with sqlite3 between two group commits: the next one must not reuse its ids.
        func copyOrder(_ id: Int64, as newID: Int64, itemID: Int64) -> String {
            """
            INSERT INTO carts (id, customer, status, currency, total, created_at, updated_at)
                SELECT \(newID), 'by hand', status, currency, total, created_at, updated_at FROM carts WHERE id = \(id);
            INSERT INTO pizzas (id, cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price)
                SELECT \(itemID), \(newID), kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price
                FROM pizzas WHERE id = 1;
            """
        }
        #expect(try Fixtures.sqlite3(kitchen.path, copyOrder(1, as: 2, itemID: 3)) == "")
        let second = try await kitchen.newOrder()
        #expect(second.id == 3)
        #expect(second.items.map(\.id) == [4, 5])
        // The same through the writer's own connection, which PRAGMA data_version does not see.
        let byHand = copyOrder(1, as: 4, itemID: 6)
        try await kitchen.store.withWriter { db in try db.execute(byHand) }
        let third = try await kitchen.newOrder()
        #expect(third.id == 5)
        #expect(third.items.map(\.id) == [7, 8])
        // A refused change, then the next order goes on where the last committed one left off.
        await #expect(throws: OrderError.self) { try await kitchen.repository.place(99, by: Fixtures.actor) }
        let fourth = try await kitchen.newOrder()
        #expect(fourth.id == 6)
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*), max(seq) FROM audit_log") == "4|4")
        // The chain itself is whole; verification still names the orders added by hand, which it has no entry for.
        let linked = "SELECT count(*) FROM audit_log a JOIN audit_log b ON b.seq = a.seq + 1 AND b.prev_hash = a.hash"
        #expect(try Fixtures.sqlite3(kitchen.path, linked) == "3")
        let verification = try kitchen.store.verifyAudit()
        #expect(verification.entries == 4)
        #expect(verification.problem?.contains("order 2") == true, "\(verification)")
    }

    @Test(
        "a change refused after its rows and audit entry were written gives back its ids and sequence number: the rest of its group commit stays gapless"
    )
    func refusedChangeGivesBackItsNumbers() async throws {
        let kitchen = try Kitchen()
        let repository = kitchen.repository
        // Registered after persistence and audit, so it refuses a change whose rows are already written: its group
        // commit is rolled back and its changes run again, each in a savepoint of its own.
        let counting = CountingSubscriber<WriteTransaction>()
        repository.writers += counting
        let refusing = RefusingSubscriber<WriteTransaction>(customer: "refuse")
        repository.writers += refusing
        let largestCommit = Locked(0)
        kitchen.store.observeGroupCommits { changes, _ in largestCommit.withLock { $0 = max($0, changes) } }
        let created = try await withThrowingTaskGroup(of: Cart?.self) { group in
            for index in 0..<96 {
                group.addTask {
                    let customer = index % 8 == 3 ? "refuse" : "Ann"
                    return try? await repository.create(
                        customer: customer,
                        pizzas: [try Fixtures.factory.makePizza("cheese")] + [
                            try Fixtures.factory.makePizza("chicken")
                        ], place: true, currency: "EUR", by: Fixtures.actor
                    ).cart
                }
            }
            var carts: [Cart] = []
            for try await cart in group { if let cart { carts.append(cart) } }
            return carts
        }
        repository.writers -= refusing
        repository.writers -= counting
        #expect(created.count == 84)
        // A group commit with a refused change ran again from its start, each change in a savepoint of its own.
        #expect(counting.announced.value > 96, "no group commit was run again")
        #expect(largestCommit.value > 1, "the changes went into group commits of more than one")
        // What each caller heard is what is stored: no two orders share an id or an item id.
        for cart in created { #expect(try repository.cart(id: cart.id) == cart) }
        let items = created.flatMap { $0.items.map(\.id) }
        #expect(Set(items).count == 168)
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*), max(seq) FROM audit_log") == "84|84")
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM carts WHERE customer = 'refuse'") == "0")
        #expect(try kitchen.store.verifyAudit().ok)
        // And the next group commit goes on from there.
        _ = try await kitchen.newOrder()
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT max(seq) FROM audit_log") == "85")
        #expect(try kitchen.store.verifyAudit().ok)
    }

    @Test(
        "in a group commit run again for a change refused after its rows, one refused before any row is not run again: every caller hears once"
    )
    func refusedBeforeRowsHeardOnce() async throws {
        let kitchen = try Kitchen()
        let repository = kitchen.repository
        let refusing = RefusingSubscriber<WriteTransaction>(customer: "refuse")
        repository.writers += refusing
        let heard = Locked([String: [Bool]]())
        func submit(_ name: String, _ request: ChangeRequest) {
            repository.submit(request, by: Fixtures.actor) { result in
                heard.withLock { $0[name, default: []].append((try? result.get()) != nil) }
            }
        }
        func create(customer: String) throws -> ChangeRequest {
            .create(NewOrder(customer: customer, pizzas: [try Fixtures.factory.makePizza("cheese")], currency: "EUR"))
        }
        let commits = Locked([Int]())
        kitchen.store.observeGroupCommits { changes, _ in commits.withLock { $0.append(changes) } }
        // The writer is held until the four are queued, so they go into one group commit, in this order: the first
        // fails alone before it writes a row; the third is refused after its rows, so the group commit runs again
        // in savepoints.
        let store = kitchen.store
        let holding = Locked(false)
        let release = DispatchSemaphore(value: 0)
        let held = Task {
            try await store.withWriter { _ in
                holding.withLock { $0 = true }
                release.wait()
            }
        }
        while !holding.value { try await Task.sleep(for: .milliseconds(5)) }
        submit("refused before its rows", .removeItem(1, order: 10_000))
        submit("first good", try create(customer: "Ann"))
        submit("refused after its rows", try create(customer: "refuse"))
        submit("second good", try create(customer: "Bob"))
        release.signal()
        try await held.value
        let deadline = ContinuousClock.now + .seconds(10)
        while heard.value.values.joined().count < 4, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        // A second answer would come from the same group commit; give it time to show.
        try await Task.sleep(for: .milliseconds(200))
        repository.writers -= refusing
        #expect(
            heard.value == [
                "refused before its rows": [false], "first good": [true], "refused after its rows": [false],
                "second good": [true],
            ])
        #expect(commits.value == [2], "the four went into one group commit, which kept the two good ones")
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT group_concat(customer) FROM carts") == "Ann,Bob")
        #expect(try kitchen.store.verifyAudit().ok)
    }

    @Test("the WAL is checkpointed beside the writer and stays small while orders keep coming")
    func checkpointsBesideTheWriter() async throws {
        let kitchen = try Kitchen()
        // Each order is one commit of about ten pages: 500 of them write about 5000 WAL frames.
        for _ in 0..<500 { _ = try await kitchen.newOrder() }
        // What the writer's commits reached at most: the -wal file never shrinks when the WAL starts over. The
        // checkpointer starts at 1000 frames; commits go on while it copies them.
        var info = stat()
        try #require(stat(kitchen.path + "-wal", &info) == 0)
        let frames = Int(info.st_size) / (4096 + 24)
        #expect(frames < 2000, "the WAL grew to \(frames) frames")
        // And the orders are in the database file itself, not only in the WAL.
        let (log, done) = try await kitchen.store.checkpointWAL()
        #expect(log == done, "\(done) of \(log) frames checkpointed")
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM carts") == "500")
    }

    @Test("an edit made with sqlite3 behind the daemon's back is found by audit verify")
    func tamperDetected() async throws {
        let kitchen = try Kitchen()
        let first = try await kitchen.newOrder(place: true)
        _ = try await kitchen.newOrder()
        #expect(try kitchen.store.verifyAudit().ok)
        _ = try Fixtures.sqlite3(kitchen.path, "UPDATE carts SET status = 'delivered' WHERE id = \(first.id)")
        let statusEdit = try kitchen.store.verifyAudit()
        #expect(!statusEdit.ok)
        #expect(statusEdit.problem?.contains("order \(first.id)") == true)
        _ = try Fixtures.sqlite3(kitchen.path, "UPDATE carts SET status = 'placed' WHERE id = \(first.id)")
        #expect(try kitchen.store.verifyAudit().ok)
        _ = try Fixtures.sqlite3(
            kitchen.path,
            "DROP TRIGGER audit_log_no_update; UPDATE audit_log SET actor_name = 'mallory' WHERE seq = 1")
        let auditEdit = try kitchen.store.verifyAudit()
        #expect(!auditEdit.ok)
        #expect(auditEdit.firstBad == 1)
    }

    @Test("the audit log refuses updates and deletes")
    func appendOnly() async throws {
        let kitchen = try Kitchen()
        _ = try await kitchen.newOrder()
        let result = try Fixtures.run(["sqlite3", kitchen.path, "DELETE FROM audit_log"])
        #expect(result.output.contains("append-only"))
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM audit_log") == "1")
    }

    @Test("the oldest order of each active status is found by one seek in the partial index, not a scan")
    func oldestByStatus() async throws {
        let kitchen = try Kitchen()
        let first = try await kitchen.newOrder(place: true)
        _ = try await kitchen.newOrder(place: true)
        let baking = try await kitchen.newOrder(place: true)
        for _ in 0..<2 { _ = try await kitchen.repository.advance(baking.id, by: Fixtures.actor) }
        let done = try await kitchen.newOrder(place: true)
        _ = try await kitchen.repository.cancel(done.id, reason: "no show", by: Fixtures.actor)
        let oldest = try kitchen.store.oldestChangeByActiveStatus()
        #expect(Set(oldest.keys) == [.placed, .baking])
        #expect(oldest[.placed] == first.updatedAt)
        let plan = try Fixtures.sqlite3(
            kitchen.path,
            """
            EXPLAIN QUERY PLAN SELECT min(updated_at) FROM carts
            WHERE status = 'placed' AND status <> 'delivered' AND status <> 'cancelled'
            """)
        #expect(plan.contains("USING COVERING INDEX carts_active_by_status_age"), "\(plan)")
    }

    @Test("the orders per status are what sqlite3 counts, delivered ones too (the table's count less the others')")
    func countsByStatus() async throws {
        let kitchen = try Kitchen()
        let zero = Dictionary(uniqueKeysWithValues: OrderStatus.allCases.map { ($0, 0) })
        #expect(try kitchen.repository.countsByStatus() == zero)
        for index in 0..<9 {
            let cart = try await kitchen.newOrder(place: index > 0)
            if index % 3 == 1 { _ = try await kitchen.repository.cancel(cart.id, reason: "x", by: Fixtures.actor) }
            // Two delivered (five steps each) and one baking.
            for _ in 0..<(index % 3 != 2 ? 0 : index == 8 ? 2 : 5) {
                _ = try await kitchen.repository.advance(cart.id, by: Fixtures.actor)
            }
        }
        var expected = zero
        let rows = try Fixtures.sqlite3(kitchen.path, "SELECT status, count(*) FROM carts GROUP BY status")
        for row in rows.split(separator: "\n") {
            let parts = row.split(separator: "|")
            expected[OrderStatus(rawValue: String(parts[0]))!] = Int(parts[1])!
        }
        #expect(expected[.delivered] == 2 && expected[.cancelled] == 3 && expected[.baking] == 1)
        #expect(try kitchen.repository.countsByStatus() == expected)
    }

    @Test("an online backup opens, passes integrity_check and holds every order")
    func backup() async throws {
        let kitchen = try Kitchen()
        for _ in 0..<5 { _ = try await kitchen.newOrder() }
        let target = kitchen.directory.path + "/copy.sqlite"
        let bytes = try await kitchen.store.backup(to: target)
        #expect(bytes > 0)
        #expect(try Fixtures.sqlite3(target, "PRAGMA integrity_check") == "ok")
        #expect(try Fixtures.sqlite3(target, "SELECT count(*) FROM carts") == "5")
        // Nothing is left beside the copy: no .partial, and no -wal or -shm of the check's connection.
        let beside = try FileManager.default.contentsOfDirectory(atPath: kitchen.directory.path)
            .filter { $0.hasPrefix("copy.sqlite") }
        #expect(beside == ["copy.sqlite"])
        await #expect(throws: (any Error).self) { try await kitchen.store.backup(to: target) }
        // A folder that is not there is named, not reported as the daemon's storage failing.
        let nowhere = kitchen.directory.path + "/missing/copy.sqlite"
        await #expect {
            try await kitchen.store.backup(to: nowhere)
        } throws: { error in
            "\(error)".contains("cannot write a backup into \(kitchen.directory.path)/missing")
        }
        await #expect {
            try await kitchen.store.backup(to: target + "/inner.sqlite")
        } throws: { error in
            "\(error)".contains("cannot write a backup into \(target): Not a directory")
        }
    }

    @Test("backups started together to one path: one writes it, the others are refused by name, and the copy is whole")
    func backupsToOnePath() async throws {
        let kitchen = try Kitchen()
        // Enough pages that a backup takes a while (it copies 256 pages per step).
        for _ in 0..<400 { _ = try await kitchen.newOrder() }
        let target = kitchen.directory.path + "/copy.sqlite"
        let store = kitchen.store
        let outcomes = await withTaskGroup(of: Result<Int64, any Error>.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do { return .success(try await store.backup(to: target)) } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let written = outcomes.filter { (try? $0.get()) != nil }
        #expect(written.count == 1, "\(outcomes)")
        for case .failure(let error) in outcomes {
            let refused: Bool
            switch error as? StorageError {
            case .backupTargetExists, .backupInProgress: refused = true
            default: refused = false
            }
            #expect(refused, "\(error)")
        }
        #expect(try Fixtures.sqlite3(target, "PRAGMA integrity_check") == "ok")
        #expect(try Fixtures.sqlite3(target, "SELECT count(*) FROM carts") == "400")
        let beside = try FileManager.default.contentsOfDirectory(atPath: kitchen.directory.path)
            .filter { $0.hasPrefix("copy.sqlite") }
        #expect(beside == ["copy.sqlite"])
    }
}

@Suite("Audit JSON")
struct AuditJSONTests {
    @Test(
        "the audit log stores the order in its wire form, which reads back to the same order, odd characters included")
    func roundTrip() async throws {
        let kitchen = try Kitchen()
        let cart = try await kitchen.repository.create(
            customer: "Zoë \"the cook\"\n\t\\ 🍕", note: nil,
            pizzas: [try Fixtures.factory.builder(for: "chicken").extras(["olives", "bacon"]).build()],
            place: true, currency: "EUR", by: ChangeActor(uid: 7, name: "o'brien", pid: 9)
        ).cart
        let stored = try #require(
            try Fixtures.sqlite3(kitchen.path, "SELECT after FROM audit_log WHERE seq = 1").data(using: .utf8))
        let text = try Fixtures.sqlite3(kitchen.path, "SELECT after FROM audit_log WHERE seq = 1")
        #expect(text == cart.wire.jsonText)
        #expect(try Cart(wire: JSONParser.parse(text)) == cart)
        #expect(try JSONSerialization.jsonObject(with: stored) is [String: Any])
    }
}
