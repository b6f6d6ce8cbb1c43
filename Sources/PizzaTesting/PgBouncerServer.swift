import Foundation
import Locking

/// A throw-away PgBouncer in front of a ``PostgresServer``, as a chain runs one: transaction pooling, each shop's
/// own role passed through to PostgreSQL (one pool per shop role), the server connections of the whole database
/// capped by `max_db_connections`. Its `pgbouncer.ini`, `userlist.txt`, log and pid file live in a folder of its
/// own; run as root, it runs as the `postgres` user (PgBouncer refuses to run as root).
public final class PgBouncerServer: Sendable {
    /// The folder holding the configuration, the user list, the log and the pid file.
    public let directory: String
    /// The TCP port on 127.0.0.1 that clients (the shops) connect to.
    public let port: Int
    /// The database name clients ask for; it maps to `central` on the PostgreSQL server.
    public let database: String
    private let asPostgres: Bool
    private let users: Locked<[String: String]>
    /// The running PgBouncer's pid, read from its pid file once it answered: it is stopped by that even when its
    /// folder went first (the centre's folder holds it, and a test may drop the centre before PgBouncer).
    private let running = Locked<pid_t?>(nil)

    /// The admin console's user (`SHOW POOLS`, `SHOW STATS`).
    public static let adminUser = "pgbouncer_admin"
    static let adminPassword = "admin-secret"

    /// Where Debian installs it.
    public static let binary = "/usr/sbin/pgbouncer"

    /// Why no PgBouncer can run here, or nil when one can.
    public static var unavailableReason: String? {
        if let reason = PostgresServer.unavailableReason { return reason }
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return "no \(binary) (Debian: pgbouncer)"
        }
        return nil
    }

    /// Writes the configuration and starts PgBouncer for `server`'s database `database`, in a new folder under
    /// `parent`. `poolSize` is each shop role's pool (`default_pool_size`), `serverConnections` the cap for the
    /// database (`max_db_connections`): a pool that needs a connection past it takes an idle one from another
    /// pool, or its clients wait.
    /// With `pooledRole`, PgBouncer logs in to PostgreSQL as that role for every client (`user=` on the database
    /// line: one pool for all the shops, central schema 6's pooled role); without it, as each client's own role.
    public init(
        server: PostgresServer, database: String = "central", parent: String? = nil, poolSize: Int = 2,
        serverConnections: Int = 20, maxClients: Int = 2_000, pooledRole: (user: String, password: String)? = nil
    ) throws {
        self.database = database
        asPostgres = getuid() == 0
        directory = (parent ?? MemoryFolder.temporary) + "/pgbouncer-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try PostgresServer.freePort()
        var users = [Self.adminUser: Self.adminPassword]
        if let pooledRole { users[pooledRole.user] = pooledRole.password }
        self.users = Locked(users)
        let forced = pooledRole.map { " user=\($0.user)" } ?? ""
        let configuration = """
            ;; A chain's PgBouncer in front of the central PostgreSQL (see docs/OPERATIONS.md, "A chain of shops").
            [databases]
            \(database) = host=127.0.0.1 port=\(server.port) dbname=\(database)\(forced)

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = scram-sha-256
            auth_file = \(directory)/userlist.txt
            admin_users = \(Self.adminUser)
            pool_mode = transaction
            default_pool_size = \(poolSize)
            max_db_connections = \(serverConnections)
            max_client_conn = \(maxClients)
            server_idle_timeout = 60
            logfile = \(directory)/pgbouncer.log
            pidfile = \(directory)/pgbouncer.pid

            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: directory + "/pgbouncer.ini"))
        try writeUsers()
        if asPostgres {
            guard let user = getpwnam("postgres") else { throw PostgresServer.Failure("no postgres user") }
            guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw PostgresServer.Failure("chown \(directory): \(String(cString: strerror(errno)))")
            }
        }
        try start()
    }

    /// Lets `user` log in with `password` (PgBouncer passes the same to PostgreSQL); read again at once.
    public func addUser(_ user: String, password: String) throws {
        users.withLock { $0[user] = password }
        try writeUsers()
        if let pid = try? pid() { kill(pid, SIGHUP) }
    }

    /// Adds many users at once (a chain's shops), with one reload.
    public func addUsers(_ list: [(user: String, password: String)]) throws {
        users.withLock { users in for (user, password) in list { users[user] = password } }
        try writeUsers()
        if let pid = try? pid() { kill(pid, SIGHUP) }
    }

    private func writeUsers() throws {
        let lines = users.withLock { $0 }.sorted { $0.key < $1.key }.map { "\"\($0.key)\" \"\($0.value)\"" }
        let path = directory + "/userlist.txt"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        if asPostgres, let user = getpwnam("postgres") {
            for file in [path, directory + "/pgbouncer.ini"] { chown(file, user.pointee.pw_uid, user.pointee.pw_gid) }
        }
    }

    /// Starts PgBouncer (again) and waits until it accepts connections.
    public func start() throws {
        // setpriv, not runuser: runuser's PAM session sets the descriptor limit back to 1,024, and a chain's
        // PgBouncer holds a descriptor per shop (it refused connections with "Too many open files").
        let program = asPostgres ? "/usr/bin/setpriv" : Self.binary
        let arguments =
            (asPostgres ? ["--reuid=postgres", "--regid=postgres", "--init-groups", Self.binary] : [])
            + ["-d", directory + "/pgbouncer.ini"]
        let started = try ChildProcess.run(program, arguments)
        guard started.status == 0 else { throw PostgresServer.Failure("pgbouncer -d: \(started.output)\n\(log)") }
        let deadline = TimeLimit(seconds: 30)
        while deadline.remains {
            if (try? admin("SHOW VERSION")) != nil {
                let pid = try? pid()
                running.withLock { $0 = pid }
                return
            }
            usleep(50_000)
        }
        throw PostgresServer.Failure("pgbouncer did not accept connections within 30 s:\n\(log)")
    }

    /// Stops PgBouncer at once (`SIGTERM`: every client and server connection is closed, as a crash or a restart
    /// looks to the shops) and waits until it is gone.
    public func stop() throws {
        guard let pid = (try? pid()) ?? running.withLock({ $0 }) else { return }
        running.withLock { $0 = nil }
        kill(pid, SIGTERM)
        let deadline = TimeLimit(seconds: 30)
        while deadline.remains, kill(pid, 0) == 0 { usleep(20_000) }
        guard kill(pid, 0) != 0 else { throw PostgresServer.Failure("pgbouncer \(pid) did not stop") }
    }

    /// Stops and starts it again.
    public func restart() throws {
        try stop()
        try start()
    }

    /// CPU seconds PgBouncer has used since it last started (one process, one thread).
    public func cpuSeconds() -> Double { (try? pid()).map(ProcessCPU.seconds) ?? 0 }

    private func pid() throws -> pid_t {
        let text = try String(contentsOfFile: directory + "/pgbouncer.pid", encoding: .utf8)
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw PostgresServer.Failure("no pid in \(directory)/pgbouncer.pid")
        }
        return pid
    }

    /// Runs `command` on the admin console (`SHOW POOLS`, …) with psql; unaligned, tuples only, `|` between fields.
    @discardableResult
    public func admin(_ command: String) throws -> String {
        let result = try ChildProcess.run(
            PostgresServer.psqlPath,
            [
                "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", String(port), "-U", Self.adminUser, "-d", "pgbouncer",
                "-c", command,
            ],
            environment: ["PGPASSWORD": Self.adminPassword], timeout: 30)
        guard result.status == 0 else { throw PostgresServer.Failure("pgbouncer \(command): \(result.output)") }
        return result.output
    }

    /// Clients waiting for a server connection now, over all pools (`SHOW POOLS`' `cl_waiting`).
    public func waitingClients() throws -> Int {
        try admin("SHOW POOLS").split(separator: "\n").reduce(0) { total, line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false)
            return total + (fields.count > 3 ? Int(fields[3]) ?? 0 : 0)
        }
    }

    /// The log.
    public var log: String { (try? String(contentsOfFile: directory + "/pgbouncer.log", encoding: .utf8)) ?? "" }

    deinit {
        try? stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
