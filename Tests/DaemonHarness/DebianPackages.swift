import Foundation
import PizzaTesting

/// The Debian packages the booted-systemd test installs: this tree's, built with `scripts/build-deb`, and the one
/// built from the tree before pizzad had a package (`previousCommit`), to upgrade from.
///
/// This tree's is built again whenever the tree changed (incrementally, its Swift build in `.build-system/`); the
/// previous one is built once from `git archive` of that commit with this tree's `debian/` (its changelog's first
/// entry dropped, so it says 0.2.0). Both are kept in `.cache/deb/` (git-ignored).
///
/// Both Swift builds share `.build-system/`: the same dependencies at the same versions with the same flags
/// (BoringSSL twice, NIO, swift-crypto, postgres-nio, ...), compiled once. On a fresh clone the previous package is
/// built first and this tree's then compiles its own modules and the dependencies 0.2.0 did not have.
public enum DebianPackages {
    /// The last commit before the package: 0.2.0, installed then by `systemd/install.sh`.
    public static let previousCommit = "25c53da"
    public static let previousVersion = "0.2.0"

    public static var cache: String { Binaries.repository + "/.cache/deb" }

    /// Both packages are Swift's debug build (`noopt`, which debian/rules maps to `-c debug`) with no debug-symbol
    /// package (`noddebs`): what the test checks is the packaging, the units and the upgrade, which the optimizer
    /// does not change, and two release builds from an empty folder were most of a fresh clone's `swift test`.
    public static let buildOptions = "noopt noddebs"

    /// The environment of both `dpkg-buildpackage` runs: ``buildOptions`` and gzip for the .deb (dpkg-deb's xz took
    /// a minute and a half of both cores for each 150 MB debug build; the package is unpacked once, here).
    public static func environment(options: String, _ more: [String: String]) -> [String: String] {
        more.merging(
            ["DEB_BUILD_OPTIONS": options, "DPKG_DEB_COMPRESSOR_TYPE": "gzip", "SWIFT_SCRATCH": scratch]
        ) { _, new in new }
    }

    /// The Swift build folder of both packages (`swift build --scratch-path`, through debian/rules' SWIFT_SCRATCH).
    public static var scratch: String { Binaries.repository + "/.build-system" }

    /// Why the packages cannot be built here, or nil.
    public static var unavailableReason: String? {
        for program in ["dpkg-buildpackage", "dh", "dpkg-deb", "git"] where !Binaries.available(program) {
            return "\(program) is missing (Debian: dpkg-dev, debhelper, git)"
        }
        return nil
    }

    /// This tree's version: `debian/changelog`'s first entry.
    public static var currentVersion: String {
        get throws {
            let parsed = try run("dpkg-parsechangelog", ["-S", "Version"], directory: Binaries.repository)
            guard parsed.status == 0 else { throw HarnessError("dpkg-parsechangelog: \(parsed)") }
            return parsed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    public static var architecture: String {
        get throws {
            try run("dpkg-architecture", ["-qDEB_HOST_ARCH"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// This tree's package: the one built last if the tree is committed and the same (`.cache/deb/current/tree`
    /// names the tree it was built from), else built now (at the lowest priority: the other suites' timed checks keep
    /// their CPU). A warm run of an unchanged tree then spends no minutes on a Swift build and dpkg-buildpackage.
    public static func current() throws -> String {
        let out = cache + "/current"
        let deb = out + "/pizzad_\(try currentVersion)_\(try architecture).deb"
        let stamp = out + "/tree"
        let tree = try committedTree()
        if let tree, FileManager.default.fileExists(atPath: deb),
            (try? String(contentsOfFile: stamp, encoding: .utf8)) == tree
        {
            print("the booted-systemd test installs the package built before from tree \(tree.prefix(12))")
            return deb
        }
        try? FileManager.default.removeItem(atPath: stamp)
        let built = try run(
            "nice", ["-n", "19", Binaries.repository + "/scripts/build-deb"],
            environment: environment(options: buildOptions, ["OUT": out]),
            directory: Binaries.repository, timeout: 3600)
        guard built.status == 0, FileManager.default.fileExists(atPath: deb) else {
            throw HarnessError("scripts/build-deb failed:\n\(built.stdout.suffix(4000))\n\(built.stderr.suffix(3000))")
        }
        if let tree { try tree.write(toFile: stamp, atomically: true, encoding: .utf8) }
        return deb
    }

    /// The tree object of `HEAD` when nothing in the work tree differs from it (nor is untracked and not ignored);
    /// nil for a tree with changes of its own, which is always built.
    public static func committedTree() throws -> String? {
        let status = try run("git", ["status", "--porcelain"], directory: Binaries.repository)
        guard status.status == 0, status.stdout.isEmpty else { return nil }
        let tree = try run("git", ["rev-parse", "HEAD^{tree}"], directory: Binaries.repository)
        guard tree.status == 0 else { return nil }
        return tree.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The package of `previousCommit`, from the cache or built now.
    public static func previous() throws -> String {
        let deb = cache + "/pizzad_\(previousVersion)_\(try architecture).deb"
        if FileManager.default.fileExists(atPath: deb) { return deb }
        let source = cache + "/pizzad-\(previousVersion)"
        try? FileManager.default.removeItem(atPath: source)
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        let exported = try run(
            "/bin/sh", ["-c", "git -C \"$REPO\" archive \(previousCommit) | tar -x -C \"$DEST\""],
            environment: ["REPO": Binaries.repository, "DEST": source])
        guard exported.status == 0 else {
            throw HarnessError(
                "git archive \(previousCommit) (a shallow clone lacks it: git fetch --unshallow): \(exported)")
        }
        let copied = try run("cp", ["-a", Binaries.repository + "/debian", source + "/"])
        guard copied.status == 0 else { throw HarnessError("cp debian/: \(copied)") }
        // The changelog as it would have been then: its first entry (this tree's version) dropped.
        let changelog = try String(contentsOfFile: source + "/debian/changelog", encoding: .utf8)
        guard let start = changelog.range(of: "\npizzad (\(previousVersion))") else {
            throw HarnessError("debian/changelog has no \(previousVersion) entry")
        }
        try String(changelog[changelog.index(after: start.lowerBound)...]).write(
            toFile: source + "/debian/changelog", atomically: true, encoding: .utf8)
        try dropWhatTheOldTreeLacks(in: source)
        // No man pages (that tree has no generator for them) and no build-time checks: only what upgrades.
        let built = try run(
            "nice", ["-n", "19", "dpkg-buildpackage", "-us", "-uc", "-b"],
            environment: environment(options: buildOptions + " nodoc nocheck", ["DEB_BUILD_PROFILES": "nodoc"]),
            directory: source, timeout: 3600)
        guard built.status == 0, FileManager.default.fileExists(atPath: deb) else {
            throw HarnessError(
                "building the \(previousVersion) package failed:\n\(built.stdout.suffix(4000))\n\(built.stderr.suffix(3000))"
            )
        }
        try? FileManager.default.removeItem(atPath: source)
        return deb
    }

    /// This tree's `debian/` names files a later pizzad added (a unit, an example): for the old tree, the lines that
    /// name a file it does not have are left out, so that it packages what it had.
    public static func dropWhatTheOldTreeLacks(in source: String) throws {
        func exists(_ path: String) -> Bool {
            path.contains("*") || FileManager.default.fileExists(atPath: source + "/" + path)
        }
        for list in ["pizzad.install", "pizzad.examples", "pizzad.docs"] {
            let path = source + "/debian/" + list
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let kept = text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                guard let first = line.split(separator: " ").first else { return true }
                // Installed paths (lib/…, usr/…) are made by debian/rules; the repository's own must exist.
                let built = ["lib/", "usr/"].contains { first.hasPrefix($0) }
                if built, first.hasPrefix("lib/systemd/system/") {
                    return exists("systemd/" + (first.split(separator: "/").last.map(String.init) ?? ""))
                }
                return built || exists(String(first))
            }
            try kept.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        let rulesPath = source + "/debian/rules"
        var rules = try String(contentsOfFile: rulesPath, encoding: .utf8)
        let units = [
            "pizzad.service", "pizzad.socket", "pizzad-metrics.socket", "pizzad-board.socket", "pizzad-api.socket",
        ]
        for unit in units where !exists("systemd/" + unit) {
            rules = rules.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !($0.contains("dh_installsystemd") && $0.hasSuffix(" " + unit)) }
                .map { line in
                    // The loop that installs the units lists each one, wherever it stands in the list.
                    guard line.contains("for unit in") else { return String(line) }
                    return line.replacingOccurrences(of: " " + unit + " ", with: " ")
                        .replacingOccurrences(of: " " + unit + ";", with: ";")
                }
                .joined(separator: "\n")
        }
        try rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
    }
}
