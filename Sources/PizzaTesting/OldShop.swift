import Foundation

/// A shop's database from pizzad 0.4.0 (schema 6) with orders in it: placed, in the kitchen, delivered,
/// cancelled, open; 14 audit entries. Made from `Tests/Fixtures/pizzad-0.4.0.sql` (its first lines say how that
/// was made) with `sqlite3`, for the tests that upgrade an older shop.
public enum OldShop {
    /// How many orders it holds.
    public static let orders = 7

    /// The `.sql` dump it is made from.
    public static let dump: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Tests/Fixtures/pizzad-0.4.0.sql").path
    }()

    /// Writes the database to `path` (which must not exist yet).
    public static func database(at path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", path, ".read \(dump)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.runWithCleanSignals()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "sqlite3 .read \(dump): \(text)") }
    }

    /// sqlite3 could not make the database.
    public struct Failure: Error, CustomStringConvertible {
        /// What sqlite3 said.
        public var description: String
    }
}
