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
        // This tree's package from the tests' own debug build (see `scripts/test-packages`), when SwiftPM's link of
        // pizzad can be read; else the script builds it from the sources as an operator would.
        let relink = MemoryFolder.temporary + "pizzad-relink-\(UUID().uuidString.prefix(8)).rsp"
        defer { unlink(relink) }
        var environment: [String: String] = [:]
        if let arguments = pizzadLink() {
            try Data(arguments.map(responseFileQuoted).joined(separator: "\n").utf8)
                .write(to: URL(fileURLWithPath: relink))
            environment = ["PIZZAD_RELINK": relink, "PIZZAD_DEBUG_BUILD": Binaries.directory]
        }
        let built = try run(
            Binaries.repository + "/scripts/test-packages", [], environment: environment, timeout: 3600)
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

    /// SwiftPM's link of the debug pizzad the tests run (`Binaries.pizzad`), less its output (`-o`): read from the build
    /// plan beside the build folder (`.build/debug.yaml`), so that a library Package.swift adds is linked here too. Nil
    /// when there is no such plan (a build system other than SwiftPM's, or another layout).
    static func pizzadLink() -> [String]? {
        // `<scratch>/<triple>/<configuration>`; the plan is `<scratch>/<configuration>.yaml`, its link of pizzad the
        // command `C.pizzad-<triple>-<configuration>.exe`.
        let directory = URL(fileURLWithPath: Binaries.directory)
        let configuration = directory.lastPathComponent
        let triple = directory.deletingLastPathComponent().lastPathComponent
        let plan = directory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            configuration + ".yaml")
        guard let text = try? String(contentsOf: plan, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n")
        let key = "  \"C.pizzad-\(triple)-\(configuration).exe\":"
        guard let command = lines.firstIndex(where: { $0 == key }),
            let line = lines[command...].prefix(8).first(where: { $0.hasPrefix("    args: ") })?.dropFirst(10)
        else { return nil }
        guard var arguments = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String],
            arguments.first?.hasSuffix("swiftc") == true, let output = arguments.firstIndex(of: "-o"),
            output + 1 < arguments.count
        else { return nil }
        arguments.removeSubrange(output...(output + 1))
        return Array(arguments.dropFirst())
    }

    /// `argument` as one word of a swiftc response file: in double quotes, with `\\` and `"` escaped.
    static func responseFileQuoted(_ argument: String) -> String {
        "\"" + argument.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
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
