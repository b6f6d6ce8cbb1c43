import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PizzaCore
import PizzaStorage
import PizzaWire
import PostgresNIO

extension CentralDatabase {
    // MARK: The schema

    /// Checks the central schema and brings it up to `migrations` (under an advisory lock, each in a transaction)
    /// when this role may; returns the version in force. Refuses a database whose tables pizzad did not make.
    @discardableResult
    func prepareSchema(_ migrations: [Migration]) async throws -> Int {
        let tables = try await request("checking the central schema") { connection, logger in
            try await connection.query(
                """
                SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relname IN ('pizzad_central_migrations', 'shops', 'orders', 'order_events')
                ORDER BY c.relname
                """, logger: logger
            ).collect().map { try $0.decode(String.self) }
        }
        if !tables.contains(Self.migrationsTable) {
            let foreign = tables.filter(Self.centralTables.contains)
            if !foreign.isEmpty {
                throw ReplicationError.foreignDatabase(database: configuration.database, tables: foreign)
            }
        }
        let applied = tables.contains(Self.migrationsTable) ? try await appliedMigrations() : []
        let found = applied.map(\.version).max() ?? 0
        try Self.check(applied: applied, against: migrations)
        let needed = migrations.last?.version ?? 0
        if found > needed {
            logger.notice(
                "the central schema is newer than this pizzad's: shipping with what it knows",
                metadata: ["central": "\(found)", "known": "\(needed)", "peer": "\(configuration.peer)"])
            return needed
        }
        guard found < needed else { return found }
        do {
            try await request("migrating the central schema", seconds: Self.migrationSeconds) { connection, logger in
                try await connection.withTransaction(logger: logger) { connection in
                    // One shipper migrates; the others wait here, then find nothing left to do.
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
                    try await connection.query(
                        """
                        CREATE TABLE IF NOT EXISTS pizzad_central_migrations (
                            version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL CHECK (length(checksum) = 64),
                            applied_at timestamptz NOT NULL DEFAULT now())
                        """, logger: logger)
                    let done =
                        try await connection.query("SELECT max(version) FROM pizzad_central_migrations", logger: logger)
                        .collect().first.flatMap { try $0.decode(Int?.self) } ?? 0
                    for migration in migrations where migration.version > done {
                        try await connection.query(try Self.runScript(migration), logger: logger)
                        try await connection.query(
                            "INSERT INTO pizzad_central_migrations (version, name, checksum) VALUES (\(migration.version), \(migration.name), \(migration.checksum))",
                            logger: logger)
                    }
                }
            }
        } catch let error as ReplicationError {
            // insufficient_privilege: not the owner, no CREATE on the schema, no CREATEROLE for pizzad_shop.
            if case .central(let detail) = error, detail.hasSuffix("[SQLSTATE 42501]") {
                throw ReplicationError.schemaBehind(found: found, needed: needed, detail: detail)
            }
            throw error
        }
        logger.notice(
            "central schema migrated",
            metadata: ["from": "\(found)", "to": "\(needed)", "peer": "\(configuration.peer)"])
        return needed
    }

    /// How long a central migration may take: it may copy every event once (schema 5: 10 million events took
    /// 46 s here), far past `timeoutSeconds`, which is for one batch.
    static let migrationSeconds = 6 * 3600

    /// `pg_advisory_xact_lock` key of the central migrations ('PIZD' as a number, like the SQLite application id).
    static let migrationLock: Int64 = 1_346_984_516

    private func appliedMigrations() async throws -> [(version: Int, checksum: String)] {
        try await request("reading the central schema version") { connection, logger in
            try await connection.query(
                "SELECT version, checksum FROM pizzad_central_migrations ORDER BY version", logger: logger
            ).collect().map { try $0.decode((Int, String).self) }.map { (version: $0.0, checksum: $0.1) }
        }
    }

    static func check(applied: [(version: Int, checksum: String)], against migrations: [Migration]) throws {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for (version, checksum) in applied {
            guard let ours = known[version] else {
                // A centre upgraded before this shop: central migrations keep the functions an older pizzad calls
                // (schema 6 keeps the three-argument pizzad_ingest), so the shop ships on with what it knows.
                if version > (migrations.last?.version ?? 0) { continue }
                throw ReplicationError.schemaMismatch(
                    detail: "it has migration \(version), which this pizzad does not know (upgrade pizzad)")
            }
            guard ours.checksum == checksum else {
                throw ReplicationError.schemaMismatch(
                    detail: "its migration \(version) differs from this pizzad's \(ours.name) (a changed file)")
            }
        }
    }

    /// A migration file as one statement: PL/pgSQL's EXECUTE runs a script of several, which the extended
    /// query protocol does not.
    static func runScript(_ migration: Migration) throws -> PostgresQuery {
        let quote = "$pizzad_migration_script$"
        guard !migration.sql.contains(quote) else {
            throw ReplicationError.schemaMismatch(detail: "\(migration.name) must not contain \(quote)")
        }
        return PostgresQuery(
            unsafeSQL: "DO $pizzad_migration$ BEGIN EXECUTE \(quote)\(migration.sql)\(quote); END $pizzad_migration$")
    }
}
