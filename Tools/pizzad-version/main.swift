// pizzad-version CHANGELOG OUTPUT: writes the Swift source of `PizzadVersion.current` from the version of
// debian/changelog's first entry ("pizzad (0.3.0) unstable; urgency=medium" gives 0.3.0). Run by VersionPlugin.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: pizzad-version CHANGELOG OUTPUT\n".utf8))
    exit(64)
}
guard let text = try? String(contentsOfFile: arguments[1], encoding: .utf8),
    let first = text.split(separator: "\n").first,
    let open = first.firstIndex(of: "("), let close = first.firstIndex(of: ")"), open < close
else {
    FileHandle.standardError.write(
        Data("pizzad-version: no 'pizzad (VERSION)' line at the top of \(arguments[1])\n".utf8))
    exit(65)
}
let version = first[first.index(after: open)..<close]
guard !version.isEmpty, version.allSatisfy({ $0.isLetter || $0.isNumber || ".+~-".contains($0) }) else {
    FileHandle.standardError.write(Data("pizzad-version: '\(version)' is not a Debian version\n".utf8))
    exit(65)
}
let source = """
    // Generated from debian/changelog by Tools/pizzad-version (VersionPlugin); edit the changelog, not this file.

    /// The version of pizzad and pizzactl, built together from this repository: debian/changelog's first entry.
    public enum PizzadVersion {
        /// The version `pizzad --version`, `pizzactl --version`, `daemon.hello` and the package all show.
        public static let current = "\(version)"
    }

    """
// Written only when it changes, so that an unchanged changelog rebuilds nothing.
if (try? String(contentsOfFile: arguments[2], encoding: .utf8)) != source {
    do {
        try source.write(toFile: arguments[2], atomically: true, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("pizzad-version: cannot write \(arguments[2]): \(error)\n".utf8))
        exit(73)
    }
}
