import Foundation
import Logging
import PizzaCore
import PizzaReplication
import PizzaStorage
import SQLite

#if canImport(Glibc)
    import Glibc
#endif

/// `pizzad restore`: rebuilds the database pizzad would open from a backup or from the centre, with the daemon
/// stopped. The copy is made beside the database (`<database>.restoring`), checked as a whole, fsynced, and only
/// then renamed into place; the database it replaces is moved aside with the time in its name, never deleted.
/// Whatever fails, the database in place is left as it was.
enum Restore {
    /// What was (or would be) restored.
    struct Outcome {
        var source: String
        var summary: RestoredCopy.Summary
        var notes: [String] = []
    }

    /// A refusal with its exit code.
    struct Failure: Error, CustomStringConvertible {
        var code: Int32
        var description: String
    }

    /// How many entries are read and written at a time.
    static let page = 5_000

    static func run(_ options: RestoreOptions, environment: [String: String]) async -> Int32 {
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, journal: environment["JOURNAL_STREAM"] != nil)
        }
        do {
            print(try await restore(options, environment: environment))
            return Daemon.ExitCode.ok
        } catch {
            let failure = classify(error)
            FileHandle.standardError.write(Data("pizzad restore: \(failure.description)\n".utf8))
            return failure.code
        }
    }

    /// The exit code for `error` (sysexits.h): what an operator or a unit's `ExecStartPre=` can tell apart.
    static func classify(_ error: any Error) -> Failure {
        switch error {
        case let failure as Failure: return failure
        case let error as RestoreError:
            switch error {
            case .databaseInUse: return Failure(code: Daemon.ExitCode.temporaryFailure, description: "\(error)")
            case .databaseExists: return Failure(code: Daemon.ExitCode.cannotCreate, description: "\(error)")
            default: return Failure(code: Daemon.ExitCode.badDatabase, description: "\(error)")
            }
        case let error as ReplicationError:
            switch error {
            case .unreachable, .timedOut, .authentication, .passwordFile, .schemaBehind:
                return Failure(code: Daemon.ExitCode.unavailable, description: "\(error); nothing was changed")
            case .shopCollision, .diverged, .tampered, .foreignDatabase, .schemaMismatch:
                return Failure(code: Daemon.ExitCode.badDatabase, description: "\(error); nothing was changed")
            case .central: return Failure(code: Daemon.ExitCode.failure, description: "\(error); nothing was changed")
            }
        default: return Failure(code: Daemon.ExitCode.failure, description: "\(error); nothing was changed")
        }
    }

    static func restore(_ options: RestoreOptions, environment: [String: String]) async throws -> String {
        let loader = ConfigurationLoader(flags: options.flags, environment: environment)
        let configuration: DaemonConfiguration
        do {
            configuration = try await loader.load()
        } catch {
            throw Failure(code: Daemon.ExitCode.badConfiguration, description: "configuration refused: \(error)")
        }
        let path = configuration.databasePath
        let exists = FileManager.default.fileExists(atPath: path)
        if exists && options.ifNotExists {
            return "pizzad restore: a database is in place at \(path); nothing restored (--if-db-not-exists)"
        }
        if exists, !options.dryRun, let holder = DatabaseHolder.holder(of: path) {
            throw RestoreError.databaseInUse(path: path, pid: holder.pid, program: holder.program)
        }
        if exists && !options.force && !options.dryRun {
            throw RestoreError.databaseExists(path: path, detail: describeExisting(path))
        }
        let migrationsPath = try Daemon.findMigrations(configuration)
        let migrations = try Migration.load(from: migrationsPath)
        try DurableFiles.createDirectories(DurableFiles.parent(of: path))
        let staging = path + ".restoring"
        let outcome: Outcome
        do {
            switch options.source {
            case .backup(let file):
                outcome = try restoreBackup(
                    file, point: options.point, migrations: migrations, into: staging,
                    replicating: configuration.replication != nil)
            case .central:
                guard let replication = configuration.replication else {
                    throw Failure(
                        code: Daemon.ExitCode.badConfiguration,
                        description: "--from-central needs replication.postgres (host, database, user) and "
                            + "replication.shopId in the configuration")
                }
                outcome = try await restoreCentral(
                    replication, point: options.point, migrations: migrations,
                    centralMigrations: try Migration.load(from: migrationsPath + "/central"), into: staging,
                    environment: environment)
            }
        } catch {
            removeStaging(staging)
            throw error
        }
        let summary = outcome.summary
        var lines = [
            "\(summary.entries) entries, \(summary.orders) orders, last entry \(summary.lastSeq)"
                + (summary.lastAt.map { " at \($0)" } ?? "") + ", shipped mark \(summary.shippedSeq)"
        ]
        lines += outcome.notes
        if options.dryRun {
            removeStaging(staging)
            return
                (["pizzad restore: would restore \(path) from \(outcome.source):"] + lines
                + ["nothing was changed (--dry-run)"]).joined(separator: "\n  ")
        }
        var movedAside: String?
        do {
            if exists { movedAside = try moveAside(path, detail: describeExisting(path)) }
            if getuid() == 0 { try matchOwner(staging, folder: DurableFiles.parent(of: path)) }
            try DurableFiles.publish(staging, as: path)
        } catch {
            removeStaging(staging)
            throw error
        }
        if let movedAside { lines.append("the database it replaced was moved to \(movedAside)") }
        return (["pizzad restore: restored \(path) from \(outcome.source):"] + lines).joined(separator: "\n  ")
    }

    // MARK: Sources

    static func restoreBackup(
        _ file: String, point: RestoreOptions.Point, migrations: [Migration], into staging: String, replicating: Bool
    ) throws -> Outcome {
        let reader = try BackupReader(path: file, migrations: migrations)
        let source = "the backup \(file)"
        let target: Int64
        switch point {
        case .end: target = reader.last.seq
        case .seq(let seq): target = min(seq, reader.last.seq)
        case .time(let time): target = try reader.lastSeq(atOrBefore: time)
        }
        if target == 0 && point != .end { throw RestoreError.nothingToRestore(source: source, point: point.text) }
        if target == reader.last.seq {
            try reader.copy(to: staging)
        } else {
            let rebuild = try AuditRebuild(path: staging, migrations: migrations, source: source)
            while rebuild.lastSeq < target {
                let entries = try reader.entries(
                    after: rebuild.lastSeq, limit: min(page, Int(target - rebuild.lastSeq)))
                try rebuild.append(try entries.map(RebuildEntry.init))
            }
            let shipped = min(reader.mark.shippedSeq, target)
            try rebuild.finish(
                shopKey: reader.mark.shopKey.count == 32 ? reader.mark.shopKey : nil,
                shipped: (shipped, try reader.hash(seq: shipped) ?? AuditLogger.genesis))
        }
        var outcome = Outcome(source: source, summary: try RestoredCopy.prepare(path: staging, migrations: migrations))
        if replicating {
            outcome.notes.append(
                "replication is on: if the centre holds entries after \(outcome.summary.lastSeq), shipping from "
                    + "this copy stops as diverged, and `pizzad restore --from-central --force` restores all the "
                    + "centre has")
        }
        return outcome
    }

    static func restoreCentral(
        _ replication: ReplicationConfiguration, point: RestoreOptions.Point, migrations: [Migration],
        centralMigrations: [Migration], into staging: String, environment: [String: String]
    ) async throws -> Outcome {
        let history = try await CentralHistory.open(
            replication, migrations: centralMigrations, environment: environment, logger: Logger(label: "pizzad"))
        do {
            let outcome = try await rebuild(from: history, point: point, migrations: migrations, into: staging)
            await history.close()
            return outcome
        } catch {
            await history.close()
            throw error
        }
    }

    private static func rebuild(
        from history: CentralHistory, point: RestoreOptions.Point, migrations: [Migration], into staging: String
    ) async throws -> Outcome {
        let state = history.state
        let rebuild = try AuditRebuild(path: staging, migrations: migrations, source: history.source)
        var target = state.cursor
        if case .seq(let seq) = point { target = min(seq, state.cursor) }
        reading: while rebuild.lastSeq < target {
            var entries = try await history.entries(
                after: rebuild.lastSeq, limit: min(page, Int(target - rebuild.lastSeq)))
            guard !entries.isEmpty else {
                throw RestoreError.brokenHistory(
                    source: history.source, seq: rebuild.lastSeq + 1,
                    problem: "the centre's entries end at \(rebuild.lastSeq), before its cursor \(state.cursor)")
            }
            if case .time(let time) = point,
                let cut = entries.firstIndex(where: { (Timestamp(iso8601: $0.entry.at) ?? time) > time })
            {
                entries.removeSubrange(cut...)
                try rebuild.append(entries)
                break reading
            }
            try rebuild.append(entries)
        }
        if rebuild.lastSeq == 0 {
            throw RestoreError.nothingToRestore(source: history.source, point: point.text)
        }
        if rebuild.lastSeq == state.cursor && rebuild.lastHash != state.hash {
            throw RestoreError.brokenHistory(
                source: history.source, seq: state.cursor,
                problem:
                    "the centre's cursor holds hash \(state.hash.prefix(12))…, its entry \(rebuild.lastHash.prefix(12))…"
            )
        }
        // The centre has everything up to here: shipping goes on after it, with the key the centre knows.
        try rebuild.finish(shopKey: state.key, shipped: (rebuild.lastSeq, rebuild.lastHash))
        var outcome = Outcome(
            source: history.source, summary: try RestoredCopy.prepare(path: staging, migrations: migrations))
        if rebuild.lastSeq < state.cursor {
            outcome.notes.append(
                "the centre holds entries \(rebuild.lastSeq + 1)…\(state.cursor) after this point: a pizzad shipping "
                    + "from this copy stops as diverged; restore it to another --database to look at it")
        }
        return outcome
    }

    // MARK: Files

    /// What is in place, for messages: where its audit log ends and how many orders it holds.
    static func describeExisting(_ path: String) -> String {
        do {
            let db = try Database(path: path, mode: .readOnly)
            let seq = try db.statement("SELECT coalesce(max(seq), 0) FROM audit_log").first { $0.int64(0) } ?? 0
            let orders = try db.statement("SELECT count(*) FROM carts").first { $0.int64(0) } ?? 0
            return "its audit log ends at entry \(seq), \(orders) orders"
        } catch {
            return "it cannot be read: \(error)"
        }
    }

    /// Moves the database at `path` and its `-wal` and `-shm` aside to `<path>.replaced-<UTC time>`, the WAL
    /// first, so that a cut midway never leaves a WAL beside a database it does not belong to. Returns the new path.
    static func moveAside(_ path: String, detail: String) throws -> String {
        var stamp = Timestamp.now().description
        stamp.removeAll { $0 == "-" || $0 == ":" }
        var target = path + ".replaced-" + stamp.prefix(15) + "Z"
        // Two restores in one second: the second one's files get a number.
        var number = 1
        while ["", "-wal", "-shm"].contains(where: { FileManager.default.fileExists(atPath: target + $0) }) {
            number += 1
            target = path + ".replaced-" + stamp.prefix(15) + "Z-\(number)"
        }
        for suffix in ["-wal", "-shm", ""] where FileManager.default.fileExists(atPath: path + suffix) {
            try DurableFiles.publish(path + suffix, as: target + suffix)
        }
        FileHandle.standardError.write(Data("pizzad restore: moved \(path) aside to \(target) (\(detail))\n".utf8))
        return target
    }

    /// Gives the new file to the owner of the database's folder (run as root, the restored file would otherwise
    /// be root's, and the daemon's user could only read it).
    static func matchOwner(_ file: String, folder: String) throws {
        var info = stat()
        guard stat(folder, &info) == 0 else { return }
        guard chown(file, info.st_uid, info.st_gid) == 0 else {
            throw StorageError.fileSystem(
                operation: "chown", path: file, reason: String(cString: strerror(errno)))
        }
        _ = chmod(file, 0o640)
    }

    static func removeStaging(_ staging: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: staging + suffix) }
    }
}
