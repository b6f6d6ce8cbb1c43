import Crypto
import Foundation
import PizzaCore

/// One numbered schema change, read from `migrations/NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    /// The number the file starts with.
    public let version: Int
    /// The file name.
    public let name: String
    /// The SQL to run.
    public let sql: String
    /// SHA-256 of the file, hex.
    public let checksum: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).withUnsafeBytes { Hex.string($0) }
    }

    /// Reads every `NNNN_name.sql` in `directory`, in version order.
    public static func load(from directory: String) throws -> [Migration] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw StorageError.migrationsNotFound(searched: [directory])
        }
        var migrations: [Migration] = []
        for file in files.sorted() where file.hasSuffix(".sql") {
            let digits = file.prefix { $0.isNumber }
            guard digits.count == 4, let version = Int(digits), version > 0,
                file.dropFirst(4).first == "_"
            else {
                throw StorageError.badMigration(file: file, reason: "the name must be NNNN_description.sql")
            }
            guard let data = FileManager.default.contents(atPath: directory + "/" + file),
                let sql = String(data: data, encoding: .utf8)
            else {
                throw StorageError.badMigration(file: file, reason: "cannot be read as UTF-8 text")
            }
            if let previous = migrations.last, previous.version == version {
                throw StorageError.badMigration(file: file, reason: "version \(version) is used twice")
            }
            migrations.append(Migration(version: version, name: file, sql: sql))
        }
        guard !migrations.isEmpty else { throw StorageError.migrationsNotFound(searched: [directory]) }
        return migrations
    }
}
