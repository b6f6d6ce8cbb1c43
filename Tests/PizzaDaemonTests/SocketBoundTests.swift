import DaemonHarness
import Foundation
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

/// pizzabench's `whole-order` sets pizzad's whole order beside the socket bound's (`SocketWork/socketwork.c`), and
/// reads the targets against it; that reading holds only while the bound writes what pizzad writes. Both make the
/// realistic order (``RealisticOrder``) and pay it, and every row each wrote for it is compared, column by column,
/// but for ids, times and the writer's process.
@Suite("The socket bound's whole order")
struct SocketBoundTests {
    /// Columns that name a row, a moment or who wrote it: different in any two databases.
    static let apart: Set = [
        "id", "ref", "at", "created_at", "updated_at", "actor_uid", "actor_name", "actor_pid", "seq", "prev_hash",
        "hash",
    ]
    static let tables = ["carts", "pizzas", "order_items", "fees", "status_history", "payments"]

    @Test("socketwork.c's realistic and paid orders write the rows pizzad writes for them")
    func sameRows() throws {
        let headers = ["/usr/include/sqlite3.h", "/usr/include/openssl/sha.h"]
        guard Binaries.available("gcc"), headers.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) else {
            print("skipped: socketwork.c needs gcc, libsqlite3-dev and libssl-dev, which this machine lacks")
            return
        }
        let folder = try TemporaryFolder("socket-bound")
        let bound = folder.path + "/socketwork"
        let built = try ChildProcess.run(
            "/usr/bin/env",
            [
                "gcc", "-O2", "-pthread", "-Wno-deprecated-declarations", "-o", bound,
                Binaries.repository + "/Sources/pizzabench/SocketWork/socketwork.c", "-lsqlite3", "-lcrypto",
            ])
        try #require(built.status == 0, "\(built.output)")
        let boundDatabase = folder.path + "/bound.sqlite"
        let ran = try ChildProcess.run(
            bound, [boundDatabase, Binaries.repository + "/migrations", "1", "0.3", "paid"], timeout: 60)
        try #require(ran.status == 0, "\(ran.output)")
        let wrong = try ChildProcess.run(
            bound, [boundDatabase, Binaries.repository + "/migrations", "1", "0.3", "six"])
        #expect(wrong.status == 2 && wrong.output.contains("ORDER: two-pizzas, realistic or paid"), "\(wrong.output)")

        let daemon = try PizzadProcess(config: RealisticOrder.menu, directory: folder.path + "/pizzad")
        let connection = try RawConnection(path: daemon.socket)
        let created = try connection.request(
            RPCRequest(id: 1, method: "order.create", params: Params(RealisticOrder.params + [("ref", "c0-1")])).line)
        let order = try #require(created["result"] as? [String: Any], "\(created)")
        let id = try #require(order["id"] as? Int)
        let paid = try connection.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.pay","params":{"id":\#(id),"tender":"card","amount":3490}}"#)
        #expect(paid["error"] == nil, "\(paid)")
        try daemon.stop()

        for table in Self.tables {
            let columns = try sqlite3(boundDatabase, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
                .split(separator: "\n").map(String.init).filter { !Self.apart.contains($0) }
            let key = table == "carts" ? "id" : "cart_id"
            let query =
                "SELECT \(columns.map { "quote(\($0))" }.joined(separator: ", ")) FROM \(table) "
                + "WHERE \(key) = (SELECT min(id) FROM carts) ORDER BY id"
            let mine = try sqlite3(daemon.database, query)
            #expect(!mine.isEmpty, "pizzad wrote no \(table) row")
            #expect(try sqlite3(boundDatabase, query) == mine, "\(table)")
        }
        // The audit entries: the same two, each holding texts of the order as long as pizzad's within a few bytes
        // (the ref, the process id and the item ids are written differently).
        let entries =
            "SELECT action, status_after, reason IS NULL, coalesce(length(before), 0), length(after) FROM audit_log "
            + "WHERE order_id = (SELECT min(id) FROM carts) ORDER BY seq"
        let mine = try sqlite3(daemon.database, entries).split(separator: "\n").map { $0.split(separator: "|") }
        let its = try sqlite3(boundDatabase, entries).split(separator: "\n").map { $0.split(separator: "|") }
        try #require(mine.count == 2 && its.count == 2, "pizzad: \(mine), the bound: \(its)")
        for (pizzad, bound) in zip(mine, its) {
            #expect(pizzad.prefix(3) == bound.prefix(3), "\(pizzad) against \(bound)")
            for field in 3...4 {
                let difference = abs((Int(pizzad[field]) ?? 0) - (Int(bound[field]) ?? 0))
                #expect(difference <= 40, "\(pizzad) against \(bound): the texts' lengths")
            }
        }
    }
}
