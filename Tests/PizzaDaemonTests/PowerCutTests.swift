import DaemonHarness
import Foundation
import PizzaClient
import PizzaProtocol
import PizzaTesting
import PizzaWire
import Testing

/// Whether FUSE works here; prints why not when it does not (the tests are then skipped).
let powerCutAvailable: Bool = {
    guard let reason = PowerCutFileSystem.unavailableReason else { return true }
    print("skipping the power-cut tests: \(reason)")
    return false
}()

/// powercutfs built from Tests/PowerCut/powercutfs.c into the build folder.
let powerCutBinary: String = {
    do {
        return try PowerCutFileSystem.build(
            source: Binaries.repository + "/Tests/PowerCut/powercutfs.c", into: Binaries.directory)
    } catch {
        return "build failed: \(error)"
    }
}()

/// A folder for one test's disk, mount and run folders.
private func scratch(_ name: String) throws -> String {
    let root = MemoryFolder.temporary + "pizzad-powercut-\(name)-" + UUID().uuidString.prefix(8)
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    return root
}

private func mounted(_ root: String, seed: UInt32? = nil, prefix: Bool = true) throws -> PowerCutFileSystem {
    try #require(FileManager.default.isExecutableFile(atPath: powerCutBinary), "\(powerCutBinary)")
    return try PowerCutFileSystem(
        binary: powerCutBinary, backing: root + "/disk", mountPoint: root + "/mnt", seed: seed, prefix: prefix)
}

@Suite(
    "Power cuts: a file system that forgets what was not fsynced", .serialized, .enabled(if: powerCutAvailable),
    .offThePool)
struct PowerCutTests {
    // MARK: negative controls: without these a green run proves nothing

    @Test(
        "negative control: rows a program acknowledged with synchronous=OFF are lost at a cut; with FULL they are kept")
    func unsyncedRowsAreLost() throws {
        for synchronous in ["OFF", "FULL"] {
            let root = try scratch("sync-\(synchronous)")
            defer { try? FileManager.default.removeItem(atPath: root) }
            var fs = try mounted(root, prefix: false)
            let data = fs.mountPoint + "/data"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            try PowerCutFileSystem.syncDirectory(fs.mountPoint)
            // sqlite3, a plain C program on SQLite, "acknowledges" each row once its COMMIT returned.
            let inserts = (1...50).map { "INSERT INTO t VALUES (\($0)); SELECT 'ack ' || \($0);" }.joined(
                separator: "\n")
            let sql = "PRAGMA journal_mode=WAL; PRAGMA synchronous=\(synchronous); CREATE TABLE t (x);\n\(inserts)"
            let written = try run("sqlite3", [data + "/t.sqlite"], input: sql)
            #expect(written.status == 0, "\(written)")
            let acknowledged = written.stdout.split(separator: "\n").filter { $0.hasPrefix("ack ") }.count
            #expect(acknowledged == 50)
            try fs.cut()
            let counters = try fs.counters
            try fs.unmount()
            fs = try mounted(root)
            let survived = try run("sqlite3", [data + "/t.sqlite", "SELECT count(*) FROM t"])
            let rows =
                survived.status == 0 ? Int(survived.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 : 0
            if synchronous == "OFF" {
                #expect(
                    rows < acknowledged,
                    "synchronous=OFF kept all \(rows) rows across a cut: the file system did not bite (\(counters))")
                #expect(counters.droppedBytes > 0, "\(counters)")
            } else {
                #expect(rows == acknowledged, "synchronous=FULL lost rows: \(survived) (\(counters))")
            }
            try fs.unmount()
        }
    }

    @Test("a clean unmount saves the tree even while another mount namespace holds a copy of the mount")
    func unmountWithCopyElsewhere() throws {
        let root = try scratch("namespace")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fs = try mounted(root, prefix: false)
        let text = Data("kept by the unmount\n".utf8)
        #expect(FileManager.default.createFile(atPath: fs.mountPoint + "/file", contents: text))
        // A namespace made now copies the mount, as systemd-nspawn's does in the booted-systemd test beside this.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["unshare", "--mount", "sleep", "300"]
        try holder.runWithCleanSignals()
        defer {
            // SIGKILL: what the test runner starts inherits a signal mask that blocks SIGTERM.
            kill(holder.processIdentifier, SIGKILL)
            holder.waitUntilExit()
        }
        usleep(300_000)
        try #require(holder.isRunning, "unshare --mount did not start")
        let took = Stopwatch()
        try fs.unmount()
        #expect(took.seconds < 60, "the unmount took \(took.seconds) s")
        #expect(FileManager.default.contents(atPath: root + "/disk/file") == text)
    }

    @Test("negative control: a file renamed into place is gone after a cut unless its folder was fsynced")
    func renameNeedsFolderSync() throws {
        for syncFolder in [false, true] {
            let root = try scratch("rename")
            defer { try? FileManager.default.removeItem(atPath: root) }
            var fs = try mounted(root, prefix: false)
            let folder = fs.mountPoint + "/folder"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try PowerCutFileSystem.syncDirectory(fs.mountPoint)
            try PowerCutFileSystem.syncDirectory(folder)
            // The usual atomic replace: write a temporary file, fsync it, rename it over the name.
            let fd = open(folder + "/new.tmp", O_WRONLY | O_CREAT | O_EXCL, 0o644)
            try #require(fd >= 0)
            let text = Array("the whole new content\n".utf8)
            #expect(write(fd, text, text.count) == text.count)
            #expect(fsync(fd) == 0)
            close(fd)
            #expect(rename(folder + "/new.tmp", folder + "/final") == 0)
            if syncFolder { try PowerCutFileSystem.syncDirectory(folder) }
            try fs.cut()
            try fs.unmount()
            fs = try mounted(root)
            let content = FileManager.default.contents(atPath: folder + "/final")
            if syncFolder {
                #expect(content == Data(text), "the renamed file, its folder fsynced, must survive")
            } else {
                #expect(
                    content == nil,
                    "a rename whose folder was never fsynced survived the cut: the file system did not bite")
                #expect(!FileManager.default.fileExists(atPath: folder + "/new.tmp"))
            }
            try fs.unmount()
        }
    }

    @Test("a torn write keeps whole 512-byte sectors of an unsynced write, and the disk answers EIO after the cut")
    func tornWritesAndDeadDisk() throws {
        let root = try scratch("torn")
        defer { try? FileManager.default.removeItem(atPath: root) }
        var fs = try mounted(root)
        let path = fs.mountPoint + "/file"
        // Seeds until one tears the single unsynced write (each seed keeps, drops or tears it).
        var torn = false
        for seed in 1...64 where !torn {
            try fs.control("seed \(seed)")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(fd >= 0)
            let synced = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
            #expect(write(fd, synced, synced.count) == synced.count)
            #expect(fsync(fd) == 0)
            try PowerCutFileSystem.syncDirectory(fs.mountPoint)
            let unsynced = [UInt8](repeating: UInt8(ascii: "b"), count: 4096)
            #expect(pwrite(fd, unsynced, unsynced.count, 0) == unsynced.count)
            try fs.cut()
            #expect(write(fd, synced, 1) == -1 && errno == EIO, "a cut disk must fail writes")
            close(fd)
            torn = try fs.counters.tornWrites > 0
            try fs.unmount()
            fs = try mounted(root)
            let after = try #require(FileManager.default.contents(atPath: path))
            #expect(after.count == 4096)
            // Whatever the seed chose, the file is some sectors of "b" followed by the rest of "a".
            let firstA = after.firstIndex(of: UInt8(ascii: "a")) ?? after.count
            #expect(firstA % 512 == 0, "a cut kept part of a sector")
            #expect(
                after[..<firstA].allSatisfy { $0 == UInt8(ascii: "b") }
                    && after[firstA...].allSatisfy { $0 == UInt8(ascii: "a") })
            if torn { #expect(firstA > 0 && firstA < 4096) }
        }
        #expect(torn, "no seed in 1...64 tore the write")
        try fs.unmount()
    }

    @Test("an O_DSYNC write is durable at once; an unsynced truncate or unlink is undone by a cut")
    func syncWritesTruncateAndUnlink() throws {
        let root = try scratch("dsync")
        defer { try? FileManager.default.removeItem(atPath: root) }
        var fs = try mounted(root, prefix: false)
        let base = fs.mountPoint
        // A file made durable whole (data, then name), then shortened without an fsync.
        let kept = open(base + "/kept", O_WRONLY | O_CREAT, 0o644)
        try #require(kept >= 0)
        let data = [UInt8](repeating: 7, count: 10_000)
        #expect(write(kept, data, data.count) == data.count && fsync(kept) == 0)
        // An O_DSYNC file: each write is durable when it returns.
        let dsync = open(base + "/dsync", O_WRONLY | O_CREAT | O_DSYNC, 0o644)
        try #require(dsync >= 0)
        let doomed = open(base + "/doomed", O_WRONLY | O_CREAT, 0o644)
        try #require(doomed >= 0)
        #expect(fsync(doomed) == 0)
        try PowerCutFileSystem.syncDirectory(base)
        #expect(write(dsync, data, 1000) == 1000)
        #expect(ftruncate(kept, 10) == 0)
        #expect(unlink(base + "/doomed") == 0)
        try fs.cut()
        for fd in [kept, dsync, doomed] { close(fd) }
        try fs.unmount()
        fs = try mounted(root)
        #expect(FileManager.default.contents(atPath: base + "/dsync")?.count == 1000, "an O_DSYNC write was lost")
        #expect(
            FileManager.default.contents(atPath: base + "/kept")?.count == 10_000,
            "an unsynced truncate survived the cut")
        #expect(
            FileManager.default.fileExists(atPath: base + "/doomed"),
            "an unlink whose folder was not fsynced survived the cut")
        try fs.unmount()
    }

    // MARK: pizzad under power cuts

    @Test(
        "3 power cuts under load: everything acknowledged survives with its audit entries, backups verify, files are clean"
    )
    func pizzadUnderPowerCuts() async throws {
        let root = try scratch("pizzad")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let trial = try PowerCutTrial(pizzad: Binaries.pizzad, fileSystem: powerCutBinary, root: root)
        try trial.prepareFolders()
        for round in 0..<3 { try await trial.round(round, clients: 4) }
        let summary = try await trial.finish()
        print(summary)
        #expect(summary.lost == 0, "\(summary.problems)")
        #expect(summary.problems.isEmpty, "\(summary.problems)")
        #expect(summary.acknowledgedOrders > 0 && summary.acknowledgedBackups > 0, "\(summary)")
        #expect(summary.droppedBytes > 0, "the cuts dropped nothing: they proved nothing (\(summary))")
    }
}

/// Starts pizzad on a mounted disk armed to cut at its `cutAt`-th fsync, lets it get as far as it can (and, if it
/// serves, acknowledge one order), cuts, then remounts and restarts it; returns what the restart must show.
private struct ArmedStart {
    var cutByArm = false
    var acknowledged: Int64?
}

private func armedStart(
    _ trial: PowerCutTrial, cutAt syncs: Int, environment: [String: String] = [:]
) async throws -> ArmedStart {
    let fs = try trial.mount()
    try fs.control("arm-syncs \(syncs)")
    let daemon = try PizzadProcess(
        binary: trial.pizzad, environment: environment, directory: trial.run, database: trial.database,
        logLevel: "notice",
        wait: .none)
    var result = ArmedStart()
    if (try? daemon.waitUntilServing(timeout: 30)) != nil {
        let created = try? await ControlClient.withConnection(socket: daemon.socket) { connection in
            try await connection.call("order.create", [("items", [["kind": "cheese"]]), ("place", true)])
        }
        result.acknowledged = created?["id"]?.intValue
    }
    result.cutByArm = try fs.counters.cut
    if !result.cutByArm { try fs.cut() }
    daemon.kill()
    try fs.unmount()
    return result
}

/// Removes everything from the disk (the backing folder).
private func wipe(_ disk: String) throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: disk) {
        try FileManager.default.removeItem(atPath: disk + "/" + name)
    }
}

extension PowerCutTests {
    @Test(
        "first start on an empty disk, cut at each of its fsyncs in turn: the restart migrates and serves, and an order acknowledged after the start is kept"
    )
    func firstStartCutAtEverySync() async throws {
        let root = try scratch("first")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let trial = try PowerCutTrial(pizzad: Binaries.pizzad, fileSystem: powerCutBinary, root: root)
        var swept = 0
        for syncs in 1...80 {
            // pizzad makes the database's folder itself (mnt/data does not exist).
            try wipe(trial.disk)
            let start = try await armedStart(trial, cutAt: syncs)
            let fs = try trial.mount()
            let daemon = try PizzadProcess(
                binary: trial.pizzad, directory: trial.run, database: trial.database, logLevel: "notice")
            #expect(
                try sqlite3(trial.database, "SELECT count(*) FROM schema_migrations") == Migrations.latestVersion,
                "cut at fsync \(syncs)")
            #expect(try sqlite3(trial.database, "PRAGMA integrity_check") == "ok", "cut at fsync \(syncs)")
            if let id = start.acknowledged {
                #expect(
                    try sqlite3(trial.database, "SELECT status FROM carts WHERE id = \(id)") == "placed",
                    "cut at fsync \(syncs): acknowledged order \(id) is missing after the cut\n\(daemon.output)")
            }
            let status = try daemon.stop()
            #expect(status == 0, "cut at fsync \(syncs): pizzad exited \(status)\n\(daemon.output.suffix(3000))")
            try fs.unmount()
            swept = syncs
            if !start.cutByArm { break }
        }
        print("first start: cut at each of \(swept - 1) fsyncs, then one run that finished first")
        #expect(swept > 1 && swept < 80, "the sweep did not reach the end of the first start")
    }

    @Test(
        "a schema upgrade cut at each of its fsyncs in turn: the restart finishes it, and the old orders and their audit chain are intact"
    )
    func upgradeCutAtEverySync() async throws {
        let root = try scratch("upgrade")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A shop's 0.4.0 database (schema 6) with its orders, on an ordinary folder.
        let old = root + "/old"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        try OldShop.database(at: old + "/pizzad.sqlite")
        #expect(try sqlite3(old + "/pizzad.sqlite", "SELECT max(version) FROM schema_migrations") == "6")
        let before = OldShop.orders

        let trial = try PowerCutTrial(pizzad: Binaries.pizzad, fileSystem: powerCutBinary, root: root)
        var swept = 0
        for syncs in 1...80 {
            try wipe(trial.disk)
            try FileManager.default.createDirectory(atPath: trial.disk + "/data", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: old + "/pizzad.sqlite", toPath: trial.disk + "/data/pizzad.sqlite")
            let start = try await armedStart(trial, cutAt: syncs)
            let fs = try trial.mount()
            let daemon = try PizzadProcess(
                binary: trial.pizzad, directory: trial.run, database: trial.database, logLevel: "notice")
            #expect(
                try sqlite3(trial.database, "SELECT max(version) FROM schema_migrations") == Migrations.latestVersion,
                "cut at fsync \(syncs)")
            // An order the cut kept whole although its answer was lost is allowed; an acknowledged one must be there.
            let orders = try sqlite3(trial.database, "SELECT count(*) FROM carts")
            #expect(
                start.acknowledged == nil
                    ? ["\(before)", "\(before + 1)"].contains(orders) : orders == "\(before + 1)",
                "cut at fsync \(syncs): \(orders) orders")
            #expect(try sqlite3(trial.database, "PRAGMA integrity_check") == "ok", "cut at fsync \(syncs)")
            let verify = try await ControlClient.withConnection(socket: daemon.socket) {
                try await $0.call("audit.verify")
            }
            #expect(verify["ok"]?.boolValue == true, "cut at fsync \(syncs): \(verify.jsonText)")
            let status = try daemon.stop()
            #expect(status == 0, "cut at fsync \(syncs): pizzad exited \(status)\n\(daemon.output.suffix(3000))")
            try fs.unmount()
            swept = syncs
            if !start.cutByArm { break }
        }
        print("schema upgrade: cut at each of \(swept - 1) fsyncs, then one run that finished first")
        #expect(swept > 1 && swept < 80, "the sweep did not reach the end of the upgrade")
    }
}
