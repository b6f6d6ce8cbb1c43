import Foundation
import PizzaTesting

/// An `sqlite3` shell left with an open write transaction on a database: another program holding the write lock.
public final class WriteLockHolder {
    private let process = Process()
    private let input = Pipe()

    /// Starts `sqlite3 path`, begins an immediate transaction and writes, then waits a moment for the lock.
    public init(database path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", path]
        process.standardInput = input
        process.standardOutput = Pipe()
        try process.runWithCleanSignals()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE; UPDATE carts SET note = note;\n".utf8))
        usleep(300_000)
    }

    /// Rolls back, quits and waits for the shell to exit.
    public func release() throws {
        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        try input.fileHandleForWriting.close()
        _ = waitForExit(process)
    }
}
