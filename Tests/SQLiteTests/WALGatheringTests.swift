import Foundation
import PizzaTesting
import SQLite
import Testing

/// The VFS every connection opens with gathers a transaction's WAL frames into one write. What it must not change
/// is the files: what another process reads, and what SQLite recovers from the WAL after a crash.
@Suite("SQLite: WAL frames gathered into one write")
struct WALGatheringTests {
    /// A database in WAL mode at `synchronous=FULL`, with no automatic checkpoint (the frames stay in the WAL).
    final class Scratch {
        let temporary: TemporaryFolder
        var folder: String { temporary.path }
        var path: String { folder + "/test.sqlite" }
        let db: Database
        init() throws {
            temporary = try TemporaryFolder("pizzad-wal")
            db = try Database(path: temporary.path + "/test.sqlite")
            try db.execute(
                """
                PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;
                CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL) STRICT
                """)
        }

        /// The database and its WAL as a crash right now would leave them (no checkpoint, no `-shm`), copied to a
        /// folder of their own; `sqlite3` then has to recover the WAL from its frames and checksums alone.
        func crashCopy() throws -> String {
            let copy = folder + "/crash"
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: copy + "/test.sqlite")
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "/test.sqlite-wal")
            return copy + "/test.sqlite"
        }
    }

    /// What the `sqlite3` shell prints for `sql` on `path`: another process, with SQLite's own VFS.
    static func sqlite3(_ path: String, _ sql: String) throws -> String {
        try ChildProcess.run("/usr/bin/sqlite3", [path, sql]).output
    }

    @Test(
        "a transaction's frames go to the WAL in one write, and another process reads what it committed",
        arguments: ["FULL", "NORMAL", "OFF"])
    func oneWritePerCommit(synchronous: String) throws {
        let scratch = try Scratch()
        let db = scratch.db
        // Without a sync after the commit (NORMAL, OFF), the commit frame itself must send the frames to the file.
        try db.execute("PRAGMA synchronous = \(synchronous)")
        try db.execute("INSERT INTO t (v) VALUES (zeroblob(10))", [])
        let before = try #require(db.walWriteCounts)
        try db.transaction {
            for _ in 0..<40 { try db.execute("INSERT INTO t (v) VALUES (randomblob(1000))", []) }
        }
        let after = try #require(db.walWriteCounts)
        // About ten pages: two writes each asked for (header, page), one made.
        #expect(after.asked - before.asked >= 20)
        #expect(after.made - before.made == 1)
        #expect(try Self.sqlite3(scratch.path, "SELECT count(*) FROM t") == "41")
    }

    @Test("a transaction of 3 MiB commits (more than the buffer, and writes of under 128 KiB) and is recovered")
    func largeTransaction() throws {
        let scratch = try Scratch()
        let db = scratch.db
        // Gathered whole, this would be one write of 3 MiB, which SQLite's own write cuts to its low 17 bits and
        // then fails as "database or disk is full".
        try db.transaction {
            try db.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                INSERT INTO t (id, v) SELECT i, randomblob(1000) FROM n
                """, [])
        }
        let crashed = try scratch.crashCopy()
        let recovered = try Self.sqlite3(crashed, "PRAGMA integrity_check; SELECT count(*), sum(length(v)) FROM t")
        #expect(recovered == "ok\n3000|3000000")
    }

    @Test("pages spilled to the WAL in a transaction are read back and rewritten, and the commit is recovered")
    func spilledPages() throws {
        let scratch = try Scratch()
        let db = scratch.db
        // A page cache of ten pages: the transaction writes pages to the WAL before its commit, reads them back
        // and rewrites them in place (and their checksums at the commit), none of which may be left in memory.
        try db.execute("PRAGMA cache_size = 10")
        try db.transaction {
            try db.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
                INSERT INTO t (id, v) SELECT i, zeroblob(500) FROM n
                """, [])
            try db.execute("UPDATE t SET v = randomblob(600) WHERE id % 2 = 0", [])
            #expect(try db.statement("SELECT sum(length(v)) FROM t").first { $0.int64(0) } == 250 * 500 + 250 * 600)
        }
        let crashed = try scratch.crashCopy()
        let recovered = try Self.sqlite3(crashed, "PRAGMA integrity_check; SELECT count(*), sum(length(v)) FROM t")
        #expect(recovered == "ok\n500|275000")
        #expect(try Self.sqlite3(scratch.path, "SELECT sum(length(v)) FROM t") == "275000")
    }
}
