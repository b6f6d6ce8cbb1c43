import Foundation
import PizzaTesting

/// Where the built `pizzad` and `pizzactl` are: beside the test bundle in the build folder.
enum Binaries {
    static var directory: String { BuiltPrograms.directory }
    static var pizzad: String { directory + "/pizzad" }
    static var pizzactl: String { directory + "/pizzactl" }

    /// The repository's root (for `migrations/` and `config/`).
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Whether a program is on PATH.
    static func available(_ program: String) -> Bool { ProgramPath.find(program) != nil }
}

/// The repository's own SQLite migrations, so tests follow a new one without editing numbers.
enum Migrations {
    /// The highest `NNNN` among `migrations/NNNN_*.sql`, as text (what `sqlite3` prints for it).
    static let latestVersion: String = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Binaries.repository + "/migrations")) ?? []
        let versions = names.filter { $0.hasSuffix(".sql") }.compactMap { Int($0.prefix(4)) }
        return String(versions.max() ?? 0)
    }()
}
