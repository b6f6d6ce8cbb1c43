import DaemonHarness
import Foundation
import PizzaTesting
import Testing

@Suite("A full disk", .serialized, .offThePool)
struct DiskFullTests {
    @Test(
        "a full disk: storage errors, nothing half-written, reads go on, one log line, recovery when space returns",
        .enabled(if: canMount))
    func diskFull() throws {
        let directoryFolder = try TemporaryFolder("pizzad-full")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        let mounted = try run("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", directory])
        try #require(mounted.status == 0, "\(mounted)")
        defer { _ = try? run("umount", ["-l", directory]) }
        let listener = try NotifyListener(
            path: MemoryFolder.temporary + "pizzad-full-notify-" + UUID().uuidString.prefix(8))
        let daemon = try PizzadProcess(
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"], directory: directory)
        // Leave a little room, then fill it with orders until the disk refuses.
        let filler = directory + "/filler"
        _ = try run("dd", ["if=/dev/zero", "of=\(filler)", "bs=64k", "count=40"])
        let connection = try RawConnection(path: daemon.socket)
        var acknowledged = 0
        var storageErrors = 0
        for index in 0..<5000 {
            let note = String(repeating: "n", count: 900)
            let response = try connection.request(
                #"{"jsonrpc":"2.0","id":\#(index),"method":"order.create","params":{"note":"\#(note)","items":[{"kind":"cheese"},{"kind":"chicken"}]}}"#
            )
            if response.errorCode == nil {
                acknowledged += 1
            } else {
                #expect(response.errorCode == 1006, "\(response)")
                storageErrors += 1
                if storageErrors >= 20 { break }
            }
        }
        #expect(storageErrors >= 20, "the disk never filled (\(acknowledged) orders)")
        #expect(acknowledged > 0)
        // Reads go on while writes fail.
        let read = try connection.request(#"{"jsonrpc":"2.0","id":"r","method":"order.get","params":{"id":1}}"#)
        #expect(read.errorCode == nil, "\(read)")
        let status = try connection.request(#"{"jsonrpc":"2.0","id":"s","method":"daemon.status"}"#)
        #expect((status.result?["storage"] as? String)?.hasPrefix("failing") == true, "\(status)")
        let statusLines = listener.collect(timeout: 3) { $0.contains { $0.message.contains("STATUS=storage failing") } }
        #expect(statusLines.contains { $0.message.contains("STATUS=storage failing") })
        let deadline = TimeLimit(seconds: 5)
        while !daemon.output.contains("storage is failing"), deadline.remains { usleep(20_000) }
        #expect(daemon.output.components(separatedBy: "storage is failing").count - 1 == 1, "\(daemon.output)")

        // Space returns: the daemon recovers by itself.
        try FileManager.default.removeItem(atPath: filler)
        let again = try connection.request(
            #"{"jsonrpc":"2.0","id":"a","method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#)
        #expect(again.errorCode == nil, "\(again)")
        let recovered = TimeLimit(seconds: 5)
        while !daemon.output.contains("storage recovered"), recovered.remains { usleep(20_000) }
        #expect(daemon.output.contains("storage recovered"))
        // Every acknowledged order is whole; no refused one left a trace.
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM carts") == String(acknowledged + 1))
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM audit_log") == String(acknowledged + 1))
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM pizzas") == String(2 * acknowledged + 1))
        #expect(try sqlite3(daemon.database, "PRAGMA integrity_check") == "ok")
        #expect(try daemon.pizzactl(["audit", "verify"]).status == 0)
        #expect(try daemon.stop() == 0)
    }

    @Test("a database folder that vanishes: changes are refused with storage, nothing is acknowledged into the void")
    func vanishedDirectory() throws {
        let directoryFolder = try TemporaryFolder("pizzad-vanish")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        try FileManager.default.createDirectory(atPath: directory + "/db", withIntermediateDirectories: true)
        let daemon = try PizzadProcess(
            arguments: ["--database", directory + "/db/pizzad.sqlite"], directory: directory)
        let connection = try RawConnection(path: daemon.socket)
        let first = try connection.request(
            #"{"jsonrpc":"2.0","id":1,"method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#)
        #expect(first.errorCode == nil)
        try FileManager.default.removeItem(atPath: directory + "/db")
        let refused = try connection.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#)
        #expect(refused.errorCode == 1006, "\(refused)")
        #expect((refused["error"] as? [String: Any])?["message"] as? String ?? "" != "")
        let status = try connection.request(#"{"jsonrpc":"2.0","id":3,"method":"daemon.status"}"#)
        let storage =
            (status.result?["storage"] as? String) ?? (status["error"] as? [String: Any]).map { "\($0)" } ?? ""
        #expect(storage.contains("removed or replaced") || status.errorCode == 1006, "\(status)")
        #expect(daemon.process.isRunning)
    }
}

@Suite("A read-only database", .serialized, .offThePool)
struct ReadOnlyDatabaseTests {
    /// A database with one order, made by a daemon that was then stopped, seen through a read-only bind mount.
    /// `keepWAL` false checkpoints and removes the `-wal` and `-shm` files, as a cleanly closed database has none.
    func readOnlyView(keepWAL: Bool) throws -> (directory: String, view: String) {
        let directory = MemoryFolder.temporary + "pizzad-ro-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory + "/rw", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/view", withIntermediateDirectories: true)
        let maker = try PizzadProcess(arguments: ["--database", directory + "/rw/pizzad.sqlite"])
        #expect(try maker.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        #expect(try maker.stop() == 0)
        if !keepWAL {
            #expect(try sqlite3(directory + "/rw/pizzad.sqlite", "PRAGMA wal_checkpoint(TRUNCATE)") == "0|0|0")
            for suffix in ["-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: directory + "/rw/pizzad.sqlite" + suffix)
            }
        }
        try #require(try run("mount", ["--bind", directory + "/rw", directory + "/view"]).status == 0)
        try #require(try run("mount", ["-o", "remount,bind,ro", directory + "/view"]).status == 0)
        return (directory, directory + "/view")
    }

    @Test(
        "a read-only database: reads served, changes refused with storage, one log line, STATUS, recovery",
        .enabled(if: canMount), arguments: [true, false])
    func readOnly(keepWAL: Bool) throws {
        let (directory, view) = try readOnlyView(keepWAL: keepWAL)
        defer {
            _ = try? run("umount", ["-l", view])
            try? FileManager.default.removeItem(atPath: directory)
        }
        let before = try run("sha256sum", [view + "/pizzad.sqlite"]).stdout
        let listener = try NotifyListener(
            path: MemoryFolder.temporary + "pizzad-ro-notify-" + UUID().uuidString.prefix(8))
        // What the stopped daemon left beside the database (a fresh clone's CI once saw this start fail with
        // "unable to open database file", which a -wal without its -shm in a read-only folder would give).
        let left = try run("ls", ["-la", view]).stdout
        let daemon: PizzadProcess
        do {
            daemon = try PizzadProcess(
                arguments: ["--database", view + "/pizzad.sqlite"],
                environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"])
        } catch {
            Issue.record("the daemon on the read-only view did not start: \(error)\nthe view held:\n\(left)")
            throw error
        }
        // Reads are served.
        let shown = try daemon.pizzactl(["--json", "order", "show", "1"])
        #expect(shown.status == 0, "\(shown)")
        #expect(try json(shown)["status"] as? String == "placed")
        #expect(try daemon.pizzactl(["order", "list"]).status == 0)
        // Every kind of change is refused with storage, and nothing reaches the file.
        for change in [
            ["order", "new", "cheese"], ["order", "advance", "1"], ["order", "cancel", "1", "--reason", "x"],
        ] {
            let refused = try daemon.pizzactl(change)
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.stderr.contains("storage") && refused.stderr.contains("read-only"), "\(refused)")
        }
        let status = try json(daemon.pizzactl(["--json", "status"]))
        #expect((status["storage"] as? String ?? "").contains("read-only"), "\(status)")
        let statusLines = listener.collect(timeout: 3) { $0.contains { $0.message.contains("read-only") } }
        #expect(
            statusLines.contains { $0.message.contains("STATUS=storage failing") && $0.message.contains("read-only") })
        #expect(daemon.output.components(separatedBy: "storage is failing").count - 1 == 1, "\(daemon.output)")
        #expect(try run("sha256sum", [view + "/pizzad.sqlite"]).stdout == before)

        // Writable again: the daemon notices by itself and takes changes, into the same file.
        try #require(try run("mount", ["-o", "remount,bind,rw", view]).status == 0)
        let deadline = TimeLimit(seconds: 5)
        while !daemon.output.contains("storage recovered"), deadline.remains { usleep(20_000) }
        #expect(daemon.output.contains("storage recovered"), "\(daemon.output)")
        let advanced = try daemon.pizzactl(["order", "advance", "1"])
        #expect(advanced.status == 0, "\(advanced)\n\(daemon.output)")
        #expect(try daemon.pizzactl(["order", "new", "cheese"]).status == 0)
        #expect(try daemon.stop() == 0)
        let statuses = try sqlite3(
            directory + "/rw/pizzad.sqlite",
            "SELECT group_concat(status, ',') FROM (SELECT status FROM carts ORDER BY id)")
        #expect(statuses == "preparing,open")
        // One entry each: the order made with --place, the advance, the new order; none for the refused changes.
        let entries = try sqlite3(directory + "/rw/pizzad.sqlite", "SELECT count(*) FROM audit_log")
        #expect(entries == "3")
    }

    @Test(
        "a read-only folder with a write-ahead log and no -shm: an empty log is read past, one with changes is refused by name, the files untouched",
        .enabled(if: canMount))
    func readOnlyLogWithoutIndex() throws {
        let directory = MemoryFolder.temporary + "pizzad-ro-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory + "/rw", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/view", withIntermediateDirectories: true)
        let view = directory + "/view"
        defer {
            _ = try? run("umount", ["-l", view])
            try? FileManager.default.removeItem(atPath: directory)
        }
        let database = directory + "/rw/pizzad.sqlite"
        // A daemon killed after two orders: its log holds them, beside its -shm, which then goes.
        let maker = try PizzadProcess(arguments: ["--database", database])
        #expect(try maker.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        #expect(try maker.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        maker.kill()
        _ = try? maker.waitForExit()
        try FileManager.default.removeItem(atPath: database + "-shm")
        let walBytes = (try FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int) ?? 0
        #expect(walBytes > 32)
        try #require(try run("mount", ["--bind", directory + "/rw", view]).status == 0)
        try #require(try run("mount", ["-o", "remount,bind,ro", view]).status == 0)
        let before = try run("sha256sum", [view + "/pizzad.sqlite", view + "/pizzad.sqlite-wal"]).stdout

        let refused = try PizzadProcess(arguments: ["--database", view + "/pizzad.sqlite"], wait: .none)
        refused.process.waitUntilExit()
        #expect(refused.process.terminationStatus == 65, "\(refused.output)")
        #expect(
            refused.output.contains("pizzad.sqlite-wal (\(walBytes) bytes) holds changes")
                && refused.output.contains("-shm, which is missing"), "\(refused.output)")
        #expect(try run("sha256sum", [view + "/pizzad.sqlite", view + "/pizzad.sqlite-wal"]).stdout == before)

        // Writable once: the log is folded in and removed. Then an empty log left beside it (as a log truncated at
        // the last close is), read-only again: the file is read as it is.
        try #require(try run("mount", ["-o", "remount,bind,rw", view]).status == 0)
        let writable = try PizzadProcess(arguments: ["--database", database])
        #expect(try writable.stop() == 0)
        #expect(try sqlite3(database, "SELECT count(*) FROM carts") == "2")
        #expect(FileManager.default.createFile(atPath: database + "-wal", contents: Data()))
        try #require(try run("mount", ["-o", "remount,bind,ro", view]).status == 0)
        let reader = try PizzadProcess(arguments: ["--database", view + "/pizzad.sqlite"])
        let listed = try reader.pizzactl(["--json", "order", "show", "2"])
        #expect(listed.status == 0, "\(listed)\n\(reader.output)")
        #expect(try reader.stop() == 0)
    }

    @Test("a read-only database that still needs a migration is refused untouched", .enabled(if: canMount))
    func readOnlyNeedsMigration() throws {
        let (directory, view) = try readOnlyView(keepWAL: false)
        defer {
            _ = try? run("umount", ["-l", view])
            try? FileManager.default.removeItem(atPath: directory)
        }
        // A migrations folder with one more migration than the database has.
        let migrations = directory + "/migrations"
        try FileManager.default.copyItem(atPath: Binaries.repository + "/migrations", toPath: migrations)
        try Data("CREATE TABLE later (id INTEGER PRIMARY KEY) STRICT;\n".utf8)
            .write(to: URL(fileURLWithPath: migrations + "/9999_later.sql"))
        let before = try run("sha256sum", [view + "/pizzad.sqlite"]).stdout
        let daemon = try PizzadProcess(
            arguments: ["--database", view + "/pizzad.sqlite"], environment: ["PIZZAD_MIGRATIONS": migrations],
            wait: .none)
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 65, "\(daemon.output)")
        #expect(daemon.output.contains("read-only and needs 1 migration"), "\(daemon.output)")
        #expect(try run("sha256sum", [view + "/pizzad.sqlite"]).stdout == before)
    }
}
