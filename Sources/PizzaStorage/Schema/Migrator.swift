import Foundation
import SQLite

/// Checks a database file before pizzad touches it, then applies pending migrations.
///
/// Every refusal (not SQLite, another program's file, damaged, newer schema, changed or missing migration)
/// happens before anything is written, so a refused file is left exactly as it was.
struct Migrator {
    /// `application_id` of a pizzad database: 'PIZD'.
    static let applicationID: Int64 = 0x5049_5A44
    static let sqliteHeader = Array("SQLite format 3\0".utf8)

    let migrations: [Migration]

    /// Refuses a file that is not an SQLite database, before SQLite opens it.
    static func checkHeader(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return }
        guard Array(header) == sqliteHeader else { throw StorageError.notSQLite(path: path) }
    }

    /// Checks the opened, not yet configured, database: whose it is and which migrations it has.
    /// Returns the migrations still to apply.
    func pending(in db: Database) throws -> [Migration] {
        let path = db.path
        let applicationID: Int64
        let tables: [String]
        do {
            applicationID =
                try db.scalar("PRAGMA application_id").flatMap { if case .integer(let v) = $0 { v } else { nil } } ?? 0
            tables = try db.statement("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map {
                $0.string(0)
            }
        } catch let error as SQLiteError {
            switch error.code {
            case .notadb: throw StorageError.notSQLite(path: path)
            case .corrupt: throw StorageError.damaged(path: path, message: error.message)
            default: throw StorageError.unavailable(error)
            }
        }
        if tables.isEmpty && applicationID == 0 { return migrations }
        guard applicationID == Self.applicationID else {
            let shown = tables.prefix(5).joined(separator: ", ")
            throw StorageError.notPizzad(
                path: path, detail: "application_id \(applicationID), tables: \(shown.isEmpty ? "none" : shown)")
        }
        guard tables.contains("schema_migrations") else {
            throw StorageError.damaged(path: path, message: "schema_migrations table is missing")
        }
        var applied: [(version: Int, name: String, checksum: String)] = []
        do {
            applied = try db.statement("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
                .map { (Int($0.int64(0)), $0.string(1), $0.string(2)) }
        } catch let error as SQLiteError {
            throw StorageError.damaged(path: path, message: error.message)
        }
        let known = migrations.last?.version ?? 0
        if let newest = applied.last, newest.version > known {
            throw StorageError.newerSchema(path: path, found: newest.version, known: known)
        }
        let byVersion = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for record in applied {
            guard let migration = byVersion[record.version] else {
                throw StorageError.missingMigration(version: record.version, name: record.name)
            }
            guard migration.checksum == record.checksum else {
                throw StorageError.changedMigration(
                    version: record.version, name: record.name, recorded: record.checksum, actual: migration.checksum)
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        return migrations.filter { !appliedVersions.contains($0.version) }
    }

    /// Applies `pending`, each in its own transaction, recording it in `schema_migrations`.
    func apply(_ pending: [Migration], to db: Database, at time: String) throws {
        for migration in pending {
            do {
                try db.transaction {
                    try db.execute(migration.sql)
                    try db.execute(
                        "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                        [migration.version, migration.name, migration.checksum, time])
                    try db.execute("PRAGMA user_version = \(migration.version)")
                }
            } catch let error as SQLiteError {
                throw StorageError.migrationFailed(version: migration.version, name: migration.name, underlying: error)
            }
        }
    }
}
