import Foundation
import Locking
import PizzaClient
import PizzaCore
import PizzaProtocol
import PizzaWire
import SQLite

/// pizzad under power cuts: its database and its backups on ``PowerCutFileSystem``, load from several clients
/// (creates, places, advances, `db.backup`), a cut at a random moment with pizzad killed at the same instant, then a
/// remount, a restart and the checks the crash loop makes. Shared by `swift test` (a few rounds) and
/// `pizzabench --only powercut` (many).
public final class PowerCutTrial: Sendable {
    public struct Summary: Sendable, CustomStringConvertible {
        public var rounds = 0
        public var acknowledgedOrders = 0
        public var acknowledgedTransitions = 0
        public var acknowledgedBackups = 0
        /// Acknowledged orders, transitions or backups missing or damaged after a cut: must be 0.
        public var lost = 0
        public var droppedBytes = 0
        public var tornWrites = 0
        public var lostEntries = 0
        public var problems: [String] = []

        public var description: String {
            "power cuts: \(rounds) rounds, \(acknowledgedOrders) acknowledged orders (\(acknowledgedTransitions) transitions, "
                + "\(acknowledgedBackups) backups), acknowledged lost \(lost), unsynced bytes dropped \(droppedBytes), "
                + "torn writes injected \(tornWrites), names lost \(lostEntries), problems \(problems.count)"
        }
    }

    public let pizzad: String
    public let fileSystem: String
    /// Holds `disk/` (the backing folder), `mnt/` (the mount), `run/` (socket and logs, not on the cut file system).
    public let root: String
    public var disk: String { root + "/disk" }
    public var mountPoint: String { root + "/mnt" }
    public var run: String { root + "/run" }
    public var database: String { mountPoint + "/data/pizzad.sqlite" }
    public var backups: String { mountPoint + "/backups" }

    private struct State {
        /// Order id → the status pizzad last acknowledged for it.
        var orders: [Int64: String] = [:]
        var transitions = 0
        /// Backups `db.backup` acknowledged and not yet checked.
        var backups: [String] = []
        var summary = Summary()
    }
    private let state = Locked(State())

    public init(pizzad: String, fileSystem: String, root: String) throws {
        self.pizzad = pizzad
        self.fileSystem = fileSystem
        self.root = root
        for folder in [disk, mountPoint, run] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
    }

    public var summary: Summary { state.withLock { $0.summary } }

    /// Mounts the file system over the disk.
    public func mount(seed: UInt32? = nil) throws -> PowerCutFileSystem {
        try PowerCutFileSystem(binary: fileSystem, backing: disk, mountPoint: mountPoint, seed: seed)
    }

    /// Makes the folders pizzad's files and backups go in, durably (as an installer would).
    public func prepareFolders() throws {
        let fs = try mount()
        for folder in [mountPoint + "/data", backups] where !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try PowerCutFileSystem.syncDirectory(mountPoint)
        try fs.unmount()
    }

    /// One round: start pizzad on the mounted disk (the restart after the last cut), check what the last cut left,
    /// put load on it, cut power at a random moment within `cutWithin` (after the first acknowledgements) while
    /// killing pizzad, unmount.
    public func round(_ index: Int, clients: Int = 6, cutWithin: ClosedRange<Int> = 50...600) async throws {
        let fs = try mount()
        let daemon = try PizzadProcess(
            binary: pizzad, directory: run, database: database,
            socket: run + "/pizzad-\(UInt32.random(in: 0...UInt32.max)).sock", logLevel: "notice")
        await check(daemon: daemon, after: index == 0 ? "the first start" : "the cut in round \(index - 1)")
        let before = state.withLock { $0.orders.count }
        let socket = daemon.socket
        let load = Task.detached { [self] in
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    group.addTask { await self.orders(socket: socket, round: index, client: client) }
                }
                group.addTask { await self.backups(socket: socket, round: index) }
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while state.withLock({ $0.orders.count }) < before + 5, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: cutWithin)))
        // The power cut: the disk forgets, then pizzad dies at once. What it answered before the cut was durable;
        // what it tries after fails with EIO and is never acknowledged.
        try fs.cut()
        daemon.kill()
        await load.value
        let counters = try fs.counters
        state.withLock {
            $0.summary.rounds += 1
            $0.summary.droppedBytes += counters.droppedBytes
            $0.summary.tornWrites += counters.tornWrites
            $0.summary.lostEntries += counters.lostEntries
        }
        try fs.unmount()
    }

    /// After the last round: remount, restart and check once more, then a clean stop.
    public func finish() async throws -> Summary {
        let fs = try mount()
        let daemon = try PizzadProcess(
            binary: pizzad, directory: run, database: database,
            socket: run + "/pizzad-\(UInt32.random(in: 0...UInt32.max)).sock", logLevel: "notice")
        await check(daemon: daemon, after: "the last cut")
        let status = try daemon.stop()
        if status != 0 { problem("pizzad exited \(status) on SIGTERM after the checks:\n\(daemon.output)") }
        try fs.unmount()
        return summary
    }

    func problem(_ text: String) { state.withLock { $0.summary.problems.append(text) } }

    private func orders(socket: String, round: Int, client: Int) async {
        _ = try? await ControlClient.withConnection(socket: socket, timeout: .seconds(10)) { connection in
            for index in 0..<1_000_000 {
                let created = try await connection.call(
                    OrderOperation.create.rawValue,
                    [
                        ("ref", .string("p\(round)-\(client)-\(index)")), ("items", [["kind": "cheese"]]),
                        ("place", true),
                    ])
                guard let id = created["id"]?.intValue else { continue }
                state.withLock {
                    $0.orders[id] = "placed"
                    $0.transitions += 2
                }
                // Advance some orders further than others, so every status is in the file at a cut.
                for _ in 0..<(index % 4) {
                    let advanced = try await connection.call(OrderOperation.advance.rawValue, [("id", .int(id))])
                    guard let status = advanced["status"]?.stringValue else { break }
                    state.withLock {
                        $0.orders[id] = status
                        $0.transitions += 1
                    }
                }
            }
        }
    }

    private func backups(socket: String, round: Int) async {
        _ = try? await ControlClient.withConnection(socket: socket, timeout: .seconds(30)) { connection in
            for index in 0..<1_000_000 {
                let path = "\(backups)/r\(round)-\(index).sqlite"
                let result = try await connection.call(.backup, [("path", .string(path))])
                if result["path"]?.stringValue == path { state.withLock { $0.backups.append(path) } }
                try await Task.sleep(for: .milliseconds(150))
            }
        }
    }

    /// The crash loop's checks on the files as the cut left them, with pizzad serving them again.
    private func check(daemon: PizzadProcess, after: String) async {
        let (expected, backups) = state.withLock { state in
            let backups = state.backups
            state.backups = []
            return (state.orders, backups)
        }
        do {
            let db = try Database(path: database, mode: .readOnly)
            var stored: [Int64: String] = [:]
            try db.statement("SELECT id, status FROM carts").forEach { row in stored[row.int64(0)] = row.string(1) }
            var audited = Set<String>()
            try db.statement("SELECT order_id, status_after FROM audit_log").forEach { row in
                audited.insert("\(row.int64(0)) \(row.string(1))")
            }
            var lost: [String] = []
            for (id, status) in expected.sorted(by: { $0.key < $1.key }) {
                guard let actual = stored[id] else {
                    lost.append("order \(id) (acknowledged \(status)) is missing")
                    continue
                }
                if (OrderChecks.statuses.firstIndex(of: actual) ?? -1)
                    < (OrderChecks.statuses.firstIndex(of: status) ?? 99)
                {
                    lost.append("order \(id) is \(actual), acknowledged \(status)")
                } else if !audited.contains("\(id) \(status)") {
                    lost.append("order \(id) has no audit entry for its acknowledged \(status)")
                }
            }
            for path in backups {
                if let failure = await Self.verifyBackup(path, pizzad: pizzad, scratch: run) {
                    lost.append("backup \(path): \(failure)")
                }
                // Checked: off the disk, so the disk (held in powercutfs's memory) stays the size of one database.
                try? FileManager.default.removeItem(atPath: path)
            }
            // Backups that were not acknowledged (cut short, or their answer lost with the cut): under a final name
            // only a whole, verifiable copy may be there; a `.partial` one is expected.
            for name in (try? FileManager.default.contentsOfDirectory(atPath: self.backups)) ?? [] {
                let path = self.backups + "/" + name
                if !name.contains(".partial"), name.hasSuffix(".sqlite"),
                    let failure = await Self.verifyBackup(path, pizzad: pizzad, scratch: run)
                {
                    problem("after \(after): an unacknowledged backup is half there: \(path): \(failure)")
                }
                try? FileManager.default.removeItem(atPath: path)
            }
            let problems = try OrderChecks.problems(in: db)
            state.withLock {
                $0.summary.acknowledgedOrders = expected.count
                $0.summary.acknowledgedTransitions = $0.transitions
                $0.summary.acknowledgedBackups += backups.count
                $0.summary.lost += lost.count
                $0.summary.problems += (lost.prefix(5) + problems).map { "after \(after): \($0)" }
            }
            let verify = try await ControlClient.withConnection(socket: daemon.socket) {
                try await $0.call(.auditVerify)
            }
            if verify["ok"]?.boolValue != true { problem("after \(after): audit.verify: \(verify.jsonText)") }
        } catch {
            problem("after \(after): the checks failed: \(error)\n\(daemon.output)")
        }
    }

    /// Whether a backup `db.backup` acknowledged opens, passes integrity_check and foreign_key_check, and its audit
    /// chain verifies (a pizzad started on a copy of it answers audit.verify); nil when it does, else why not.
    public static func verifyBackup(_ path: String, pizzad: String, scratch: String) async -> String? {
        let folder = scratch + "/backup-check-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            guard FileManager.default.fileExists(atPath: path) else { return "missing" }
            let db = try Database(path: path, mode: .readOnly)
            if let problem = try OrderChecks.problems(in: db).first { return problem }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: folder + "/copy.sqlite")
            let daemon = try PizzadProcess(
                binary: pizzad, directory: folder, database: folder + "/copy.sqlite", logLevel: "notice")
            defer { _ = try? daemon.stop() }
            let verify = try await ControlClient.withConnection(socket: daemon.socket) {
                try await $0.call(.auditVerify)
            }
            return verify["ok"]?.boolValue == true ? nil : "audit.verify: \(verify.jsonText)"
        } catch {
            return "\(error)"
        }
    }
}
