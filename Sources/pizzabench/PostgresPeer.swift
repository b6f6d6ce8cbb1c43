import Foundation
import PizzaTesting

/// The peer: `Baselines/pg-samework.sql`, the same rows in PostgreSQL 15 through one function call per
/// order, driven by `pgbench` with as many clients as pizzad gets. A throw-away cluster (`initdb` in the run's
/// folder, fsync on, `synchronous_commit=on`) reached over its Unix socket.
final class PostgresPeer {
    private let server: PostgresServer
    private let script: String
    private let pgbench: String
    private let interruptToken: Int

    init(sql: String, directory: String) throws {
        let server = try PostgresServer(parent: directory, durable: true, settings: ["synchronous_commit = on"])
        self.server = server
        let interruptToken = LeftBehind.stopOnInterrupt { try? server.stop(mode: "immediate") }
        self.interruptToken = interruptToken
        pgbench = server.bin + "/pgbench"
        script = server.directory + "/create-order.pgbench"
        do {
            try server.psql(String(contentsOfFile: sql, encoding: .utf8))
            try server.psql("CREATE SEQUENCE IF NOT EXISTS bench_refs")
            // The refs as pizzabench's tills send them: one sequence per client (pgbench's :client_id).
            try "SELECT create_order('c' || :client_id || '-' || nextval('bench_refs'));\n".write(
                toFile: script, atomically: true, encoding: .utf8)
        } catch {
            // The server's deinit stops it, once the interrupt action no longer holds it.
            LeftBehind.done(interruptToken)
            throw error
        }
        // The cluster's files belong to postgres; the script is read by pgbench, which runs as us.
        chmod(script, 0o644)
    }

    /// Orders per second from `clients` pgbench clients for `seconds`.
    func run(clients: Int, seconds: Double) throws -> Double {
        let output = try Bench.run(
            pgbench,
            [
                "-n", "-h", server.directory, "-p", String(server.port), "-U", "postgres", "-c", String(clients),
                "-j", String(min(clients, 2)), "-T", String(Int(seconds.rounded(.up))), "-f", script, "postgres",
            ])
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let tps = Double(line.dropFirst("tps = ".count).prefix { $0 != " " })
        else { throw BenchError("cannot read pgbench's output: \(output)") }
        // Its upkeep done now, between steps: the tables vacuumed (autovacuum would, a minute later, in the middle of
        // another step) and its dirty buffers written, not by a checkpoint spread over the steps that come next.
        _ = try? server.psql("VACUUM ANALYZE")
        _ = try? server.psql("CHECKPOINT")
        Bench.settleDisk()
        return tps
    }

    func stop() {
        try? server.stop()
        LeftBehind.done(interruptToken)
    }
}
