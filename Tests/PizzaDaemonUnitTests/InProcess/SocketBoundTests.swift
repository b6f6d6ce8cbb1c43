import DaemonHarness
import Foundation
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

/// pizzabench reads pizzad's CPU against the socket bound's (`SocketWork/socketwork.c`) and its rate against the
/// ceiling's (`Baselines/samework.c`); those readings hold only while the C programs write what pizzad writes. Each
/// makes the order pizzad makes (the two-pizza order; the realistic one, ``RealisticOrder``, and its payment), and
/// every row each wrote for it is compared, column by column, but for ids, times and who wrote it.
@Suite("The socket bound's whole order")
struct SocketBoundTests {
    /// Columns that name a row, a moment or who wrote it: different in any two databases.
    static let apart: Set = [
        "id", "ref", "at", "created_at", "updated_at", "actor_uid", "actor_name", "actor_pid", "seq", "prev_hash",
        "hash",
    ]

    @Test("socketwork.c's realistic and paid orders write the rows pizzad writes for them")
    func wholeOrder() async throws {
        guard let folder = try Self.built() else { return }
        let boundDatabase = folder.path + "/bound.sqlite"
        let ran = try ChildProcess.run(
            folder.path + "/socketwork", [boundDatabase, Binaries.repository + "/migrations", "1", "0.3", "paid"],
            timeout: 60)
        try #require(ran.status == 0, "\(ran.output)")
        let wrong = try ChildProcess.run(
            folder.path + "/socketwork", [boundDatabase, Binaries.repository + "/migrations", "1", "0.3", "six"])
        #expect(wrong.status == 2 && wrong.output.contains("ORDER: two-pizzas, realistic or paid"), "\(wrong.output)")

        // pizzad's own rows: its dispatcher, repository and subscribers in this process, over a SQLite file.
        let daemon = try await InProcessDaemon(config: RealisticOrder.menu)
        let created = try await daemon.request(
            RPCRequest(id: 1, method: "order.create", params: Params(RealisticOrder.params + [("ref", "c0-1")])).line)
        let order = try #require(created["result"] as? [String: Any], "\(created)")
        let id = try #require(order["id"] as? Int)
        let paid = try await daemon.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.pay","params":{"id":\#(id),"tender":"card","amount":3490}}"#)
        #expect(paid["error"] == nil, "\(paid)")
        try Self.compare(
            boundDatabase, daemon.folder.path + "/pizzad.sqlite",
            tables: ["carts", "pizzas", "order_items", "fees", "status_history", "payments"], entries: 2)
    }

    @Test("socketwork.c's and samework.c's two-pizza orders write the rows pizzad writes for them")
    func twoPizzas() async throws {
        guard let folder = try Self.built() else { return }
        let bound = folder.path + "/bound.sqlite"
        let ceiling = folder.path + "/ceiling.sqlite"
        let migrations = Binaries.repository + "/migrations"
        for (program, arguments) in [
            ("socketwork", [bound, migrations, "1", "0.3", "two-pizzas"]),
            ("samework", [ceiling, migrations, "1", "0.3"]),
        ] {
            let ran = try ChildProcess.run(folder.path + "/" + program, arguments, timeout: 60)
            try #require(ran.status == 0, "\(program): \(ran.output)")
        }
        // pizzabench's two-pizza order, as its clients (and the C till) send it.
        let daemon = try await InProcessDaemon()
        let created = try await daemon.request(
            #"{"jsonrpc":"2.0","method":"order.create","params":{"ref":"c0-1","customer":"bench","items":"#
                + #"[{"kind":"chicken","size":"L","extras":["olives"]},{"kind":"cheese"}],"place":true},"id":1}"#)
        #expect(created["error"] == nil, "\(created)")
        for database in [bound, ceiling] {
            try Self.compare(
                database, daemon.folder.path + "/pizzad.sqlite", tables: ["carts", "pizzas", "status_history"],
                entries: 1)
        }
    }

    /// socketwork.c and samework.c built into a new folder; nil (and why, printed) without gcc and the headers.
    static func built() throws -> TemporaryFolder? {
        let headers = ["/usr/include/sqlite3.h", "/usr/include/openssl/sha.h"]
        guard Binaries.available("gcc"), headers.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) else {
            print("skipped: socketwork.c needs gcc, libsqlite3-dev and libssl-dev, which this machine lacks")
            return nil
        }
        let folder = try TemporaryFolder("socket-bound")
        for (program, source) in [
            ("socketwork", "Sources/pizzabench/SocketWork/socketwork.c"),
            ("samework", "Sources/pizzabench/Baselines/samework.c"),
        ] {
            let built = try ChildProcess.run(
                "/usr/bin/env",
                [
                    "gcc", "-O2", "-pthread", "-Wno-deprecated-declarations", "-o", folder.path + "/" + program,
                    Binaries.repository + "/" + source, "-lsqlite3", "-lcrypto",
                ])
            try #require(built.status == 0, "\(program): \(built.output)")
        }
        return folder
    }

    /// Every row of the first order in `tables`, column by column but for ``apart``, the same in both databases;
    /// and its `entries` audit entries of the same kinds, with texts as long within a few bytes (the ref, the
    /// process id and the item ids are written differently).
    static func compare(_ baseline: String, _ pizzad: String, tables: [String], entries count: Int) throws {
        for table in tables {
            let columns = try sqlite3(pizzad, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
                .split(separator: "\n").map(String.init).filter { !apart.contains($0) }
            let key = table == "carts" ? "id" : "cart_id"
            let query =
                "SELECT \(columns.map { "quote(\($0))" }.joined(separator: ", ")) FROM \(table) "
                + "WHERE \(key) = (SELECT min(id) FROM carts) ORDER BY id"
            let mine = try sqlite3(pizzad, query)
            #expect(!mine.isEmpty, "pizzad wrote no \(table) row")
            #expect(try sqlite3(baseline, query) == mine, "\(table) in \(baseline)")
        }
        let entries =
            "SELECT action, status_after, reason IS NULL, coalesce(length(before), 0), length(after) FROM audit_log "
            + "WHERE order_id = (SELECT min(id) FROM carts) ORDER BY seq"
        let mine = try sqlite3(pizzad, entries).split(separator: "\n").map { $0.split(separator: "|") }
        let its = try sqlite3(baseline, entries).split(separator: "\n").map { $0.split(separator: "|") }
        try #require(mine.count == count && its.count == count, "pizzad: \(mine), \(baseline): \(its)")
        for (pizzad, bound) in zip(mine, its) {
            #expect(pizzad.prefix(3) == bound.prefix(3), "\(pizzad) against \(bound)")
            for field in 3...4 {
                let difference = abs((Int(pizzad[field]) ?? 0) - (Int(bound[field]) ?? 0))
                #expect(difference <= 40, "\(pizzad) against \(bound): the texts' lengths")
            }
        }
    }
}
