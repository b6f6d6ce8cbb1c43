import Foundation
import PizzaTesting

/// The Debian packages the booted-systemd test installs: this tree's and the one built from the tree before pizzad had a
/// package (0.2.0), to upgrade from. `scripts/test-packages` holds the recipe, the cache (`.cache/deb/`) and a lock;
/// here it is asked for them, which builds what is not there yet.
public enum DebianPackages {
    /// A package the test installs: its version and its `.deb`.
    public struct Package: Sendable {
        public var version: String
        public var path: String
    }

    /// Why the packages cannot be built here, or nil.
    public static var unavailableReason: String? {
        for program in ["dpkg-buildpackage", "dh", "dpkg-deb", "git", "flock"] where !Binaries.available(program) {
            return "\(program) is missing (Debian: dpkg-dev, debhelper, git, util-linux)"
        }
        return nil
    }

    /// The package of the tree before pizzad had one, and this tree's, from `.cache/deb/` or built now (at the lowest
    /// priority: the other suites' timed checks keep their CPU). A warm run of an unchanged, committed tree spends no
    /// minutes on a Swift build and dpkg-buildpackage.
    public static func build() throws -> (previous: Package, current: Package) {
        // This tree's package from the tests' own debug build (its folder given; the script reads SwiftPM's link of
        // pizzad from the plan beside it), else from the sources as an operator would.
        let built = try run(
            Binaries.repository + "/scripts/test-packages", [], environment: ["PIZZAD_DEBUG_BUILD": Binaries.directory],
            timeout: 3600)
        var packages: [String: Package] = [:]
        for line in built.stdout.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            if words.first == "note" { print(line.dropFirst(5)) }
            if words.count == 3 { packages[words[0]] = Package(version: words[1], path: words[2]) }
        }
        guard built.status == 0, let previous = packages["previous"], let current = packages["current"] else {
            throw HarnessError(
                "scripts/test-packages failed:\n\(built.stdout.suffix(2000))\n\(built.stderr.suffix(5000))")
        }
        return (previous, current)
    }

    /// What `lintian --pedantic` says of the package at `path`: its output, or nil when lintian did not run to the
    /// end. The output is kept beside the package under the `.deb`'s SHA-256 and lintian's version, and given again
    /// for the same bytes read by the same lintian: a warm run that keeps the package (see `scripts/test-packages`)
    /// spent some 20 s of a core for the same findings. A new package or a new lintian is read again.
    public static func lint(_ path: String) throws -> (output: String, reused: Bool)? {
        let digest = try run("sha256sum", [path])
        let version = try run("lintian", ["--version"])
        guard digest.status == 0, version.status == 0, let sum = digest.stdout.split(separator: " ").first else {
            throw HarnessError("sha256sum or lintian --version failed:\n\(digest)\n\(version)")
        }
        let lintianVersion = version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: " ", with: "-")
        let kept = (path as NSString).deletingLastPathComponent + "/lintian-\(sum)-\(lintianVersion).txt"
        if let output = try? String(contentsOfFile: kept, encoding: .utf8) { return (output, true) }
        let result = try run("lintian", ["--pedantic", path], timeout: 600)
        // 0: nothing at or above --fail-on's level, 1: findings there; anything else: lintian itself failed.
        guard result.status == 0 || result.status == 1 else { return nil }
        try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: kept))
        return (result.stdout, false)
    }
}
