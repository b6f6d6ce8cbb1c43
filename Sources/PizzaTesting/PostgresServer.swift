import Foundation
import Locking

/// A throw-away PostgreSQL for tests and the benchmark: `initdb` in a folder of its own, listening on 127.0.0.1 at
/// a free port (password logins, SCRAM) and on a Unix socket in that folder (the superuser `postgres`, trusted),
/// stopped and removed at the end. Run as root, the server runs as the `postgres` user (Debian's `postgresql`).
public final class PostgresServer: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// The folder: `data/` holds the cluster, the socket and the log sit beside it.
    public let directory: String
    public let port: Int
    /// Where the server binaries are (`/usr/lib/postgresql/N/bin`).
    public let bin: String
    private let asPostgres: Bool

    /// Why no PostgreSQL can run here, or nil when one can.
    public static var unavailableReason: String? {
        guard serverBinaries() != nil else { return "no PostgreSQL server in /usr/lib/postgresql (Debian: postgresql)" }
        guard FileManager.default.isExecutableFile(atPath: psqlPath) else {
            return "psql is missing (Debian: postgresql-client)"
        }
        if getuid() == 0, getpwnam("postgres") == nil {
            return "running as root and there is no postgres user to run the server"
        }
        return nil
    }

    /// psql itself, beside the server's binaries (`/usr/lib/postgresql/N/bin/psql`), else Debian's `/usr/bin/psql`:
    /// that one is postgresql-common's Perl wrapper, which spent 35 of psql's 41 ms of CPU a call choosing the
    /// version (about 270 calls in a test run).
    public static let psqlPath: String = {
        if let bin = serverBinaries(), FileManager.default.isExecutableFile(atPath: bin + "/psql") {
            return bin + "/psql"
        }
        return "/usr/bin/psql"
    }()

    static func serverBinaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init)
            .sorted()
        return versions.reversed().map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: $0 + "/initdb")
                && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl")
        }
    }

    /// Makes and starts a cluster in a new folder under `parent`. `durable` keeps PostgreSQL's fsyncs (the
    /// benchmark's peer); tests turn them off. `settings` are more `postgresql.conf` lines.
    public init(parent: String? = nil, durable: Bool = false, settings: [String] = []) throws {
        guard let bin = Self.serverBinaries() else { throw Failure(Self.unavailableReason ?? "no PostgreSQL") }
        self.bin = bin
        asPostgres = getuid() == 0
        // A cluster without fsyncs lives in memory when it can (`memoryFolder`); `parent` holds the durable ones.
        let folder =
            durable ? (parent ?? NSTemporaryDirectory()) : (Self.memoryFolder ?? parent ?? NSTemporaryDirectory())
        directory = folder + "/pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        if asPostgres { try Self.giveToPostgres(directory) }
        if durable {
            try Self.initdb(in: directory, bin: bin, asPostgres: asPostgres, sync: true)
        } else {
            let template = try Self.template(bin: bin, asPostgres: asPostgres)
            let copied = try Self.run("/bin/cp", ["-a", template + "/data", directory + "/data"])
            guard copied.status == 0 else { throw Failure("cp -a \(template)/data: \(copied.output)") }
        }
        var lines = [
            "listen_addresses = '127.0.0.1'", "port = \(port)", "unix_socket_directories = '\(directory)'",
            "max_connections = 200", "logging_collector = off",
        ]
        if !durable { lines += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"] }
        lines += settings
        let configuration = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/data/postgresql.conf"))
        try configuration.seekToEnd()
        try configuration.write(contentsOf: Data(("\n" + lines.joined(separator: "\n") + "\n").utf8))
        try configuration.close()
        try start()
    }

    /// Starts the server (again) and waits until it accepts connections.
    public func start() throws {
        let started = try serverCommand(
            "pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "start"])
        guard started.status == 0 else { throw Failure("pg_ctl start failed:\n\(started.output)\n\(log)") }
    }

    /// Stops the server: `fast` ends sessions and shuts down cleanly, `immediate` is a crash.
    public func stop(mode: String = "fast") throws {
        let stopped = try serverCommand("pg_ctl", ["-D", directory + "/data", "-m", mode, "-w", "-t", "60", "stop"])
        guard stopped.status == 0 else { throw Failure("pg_ctl stop failed:\n\(stopped.output)") }
    }

    /// Freezes the whole server (the postmaster and every backend) with `SIGSTOP`, as a stalled machine or a
    /// partition looks from the client: connections are accepted by the kernel and nothing answers.
    public func freeze() throws { try signalAll(SIGSTOP) }

    /// Lets a frozen server go on (`SIGCONT`).
    public func thaw() throws { try signalAll(SIGCONT) }

    /// The postmaster's pid, from `postmaster.pid`.
    func postmasterPID() throws -> pid_t {
        let text = try String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)
        guard let first = text.split(separator: "\n").first, let pid = pid_t(first) else {
            throw Failure("no pid in \(directory)/data/postmaster.pid")
        }
        return pid
    }

    /// Sets the scheduling niceness of the whole server; backends started later inherit it from the postmaster.
    /// The benchmark uses 19 to approximate a centre on another machine (it then takes only idle CPU).
    /// With the kernel's autogroups on (`kernel.sched_autogroup_enabled`), niceness only ranks processes within
    /// their session's group, so the server's group is reniced too when it is not this process's own.
    public func renice(_ niceness: Int32) throws {
        let processes = try processes()
        for pid in processes
        where setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), niceness) != 0 && errno != ESRCH {
            throw Failure("setpriority \(pid): \(String(cString: strerror(errno)))")
        }
        let group = "/proc/\(processes[0])/autogroup"
        func name(_ file: String) -> Substring? {
            (try? String(contentsOfFile: file, encoding: .utf8))?.split(separator: " ").first
        }
        if let server = name(group), server != name("/proc/self/autogroup") {
            try Data("\(niceness)".utf8).write(to: URL(fileURLWithPath: group))
        }
    }

    /// CPU time the whole server has used since it started, in seconds: the postmaster and its live children, and the
    /// children that have ended (which the kernel adds to the postmaster's own account when it reaps them).
    public func cpuSeconds() throws -> Double {
        let processes = try processes()
        var ticks = 0
        for (index, pid) in processes.enumerated() {
            let fields = ProcessCPU.fields(pid)
            // After the command: utime, stime (fields 14 and 15), and for the postmaster cutime, cstime (16, 17).
            guard fields.count > 14 else { continue }
            ticks += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
            if index == 0 { ticks += (Int(fields[13]) ?? 0) + (Int(fields[14]) ?? 0) }
        }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The postmaster, then its children.
    private func processes() throws -> [pid_t] {
        let postmaster = try postmasterPID()
        var pids = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm) ": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { pids.append(pid) }
        }
        return pids
    }

    private func signalAll(_ signal: Int32) throws {
        // The postmaster first, so it forks no new backend while its children are signalled.
        for pid in try processes() where kill(pid, signal) != 0 && errno != ESRCH {
            throw Failure("kill \(pid): \(String(cString: strerror(errno)))")
        }
    }

    /// The server's log.
    public var log: String { (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "" }

    /// Runs `sql` with psql as the superuser over the Unix socket; returns the unaligned, tuples-only output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let result = try Self.run(
            Self.psqlPath,
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", String(port), "-U", "postgres",
                "-d", database, "-c", sql,
            ])
        guard result.status == 0 else { throw Failure("psql \(sql.prefix(200)): \(result.output)") }
        return result.output
    }

    /// A new database owned by a new login role `owner` with `password`. The owner may create roles, as the central
    /// schema's first migration makes the group role `pizzad_shop` unless a superuser made it before.
    public func createDatabase(_ name: String, owner: String, password: String) throws {
        try psql("CREATE ROLE \(owner) LOGIN CREATEROLE PASSWORD '\(password)'")
        try psql("CREATE DATABASE \(name) OWNER \(owner)")
    }

    /// A shop's login role: a member of `pizzad_shop` (made by the central schema's first migration), nothing else.
    public func createShopRole(_ name: String, password: String) throws {
        try psql("CREATE ROLE \(name) LOGIN PASSWORD '\(password)' IN ROLE pizzad_shop")
    }

    private func serverCommand(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try Self.serverCommand(program, arguments, bin: bin, asPostgres: asPostgres)
    }

    private static func serverCommand(
        _ program: String, _ arguments: [String], bin: String, asPostgres: Bool
    ) throws -> (status: Int32, output: String) {
        if asPostgres {
            return try run("/usr/sbin/runuser", ["-u", "postgres", "--", bin + "/" + program] + arguments)
        }
        return try run(bin + "/" + program, arguments)
    }

    /// Run as root, the server's folder belongs to the `postgres` user (the socket and the log are written there).
    private static func giveToPostgres(_ directory: String) throws {
        guard let user = getpwnam("postgres") else { throw Failure("no postgres user") }
        guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw Failure("chown \(directory): \(String(cString: strerror(errno)))")
        }
    }

    /// A new cluster in `directory/data`, its superuser `postgres` with the password `postgres-secret`.
    private static func initdb(in directory: String, bin: String, asPostgres: Bool, sync: Bool) throws {
        let passwordFile = directory + "/superuser.pw"
        try Data("postgres-secret\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        chmod(passwordFile, 0o644)
        let initdb = try serverCommand(
            "initdb",
            [
                "-D", directory + "/data", "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
                "--pwfile=\(passwordFile)", "-E", "UTF8", "--locale=C", "--no-instructions",
            ] + (sync ? [] : ["--no-sync"]), bin: bin, asPostgres: asPostgres)
        guard initdb.status == 0 else { throw Failure("initdb failed:\n\(initdb.output)") }
    }

    /// Where the clusters that need no fsyncs (the tests') are made: in memory (`MemoryFolder`) when there is a GiB
    /// free there, else the caller's folder. Copying the 39 MB template took 0.57-0.69 s of CPU to this VM's disk
    /// (the kernel's writeback) and 0.09 s to tmpfs, and a test run makes about 34 clusters, each then written to by
    /// a centre's tests. None of them is meant to survive a crash of the machine (they run with `fsync = off`), and
    /// each is removed when its server is let go (`deinit`).
    static let memoryFolder = MemoryFolder.path(free: 1 << 30)

    /// The clusters that need no fsyncs (the tests') are copies of one `initdb` a process, made by the first that
    /// needs one while the others wait: `initdb` took 1.2-1.8 s of CPU, a copy takes 0.6 s, and a test run makes
    /// about 34 clusters. Removed when the process exits.
    private static let templateFolder = Locked<String?>(nil)

    private static func template(bin: String, asPostgres: Bool) throws -> String {
        try templateFolder.withLock { folder in
            if let folder { return folder }
            let made = (memoryFolder ?? NSTemporaryDirectory()) + "/pizzad-pg-template-\(getpid())"
            try? FileManager.default.removeItem(atPath: made)
            try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
            if asPostgres { try giveToPostgres(made) }
            try initdb(in: made, bin: bin, asPostgres: asPostgres, sync: false)
            folder = made
            atexit {
                if let made = PostgresServer.templateFolder.withLock({ $0 }) {
                    try? FileManager.default.removeItem(atPath: made)
                }
            }
            return made
        }
    }

    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try ChildProcess.run(program, arguments)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw Failure("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        _ = try? serverCommand("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }
}
