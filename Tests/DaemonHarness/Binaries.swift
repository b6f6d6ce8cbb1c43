import Foundation
import PizzaTesting

/// Where the built `pizzad` and `pizzactl` are: beside the test bundle in the build folder.
public enum Binaries {
    public static var directory: String { BuiltPrograms.directory }
    public static var pizzad: String { directory + "/pizzad" }
    public static var pizzactl: String { directory + "/pizzactl" }

    /// The repository's root (for `migrations/` and `config/`).
    public static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Whether a program is on PATH.
    public static func available(_ program: String) -> Bool { ProgramPath.find(program) != nil }
}

/// The repository's own SQLite migrations, so tests follow a new one without editing numbers.
public enum Migrations {
    /// The highest `NNNN` among `migrations/NNNN_*.sql`, as text (what `sqlite3` prints for it).
    public static let latestVersion: String = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Binaries.repository + "/migrations")) ?? []
        let versions = names.filter { $0.hasSuffix(".sql") }.compactMap { Int($0.prefix(4)) }
        return String(versions.max() ?? 0)
    }()
}
