import Foundation
import Testing

/// `swift build` (and `swift build -c release`, the benchmark's and the guides' command) builds every plain target,
/// the test harness's too, in a build where the Testing module is not offered: a plain target imports it only inside
/// `#if canImport(Testing)`. The harness's `import Testing`, unguarded, once made every release build fail.
@Suite("Plain targets build without the Testing module")
struct PlainTargetsTests {
    static let repository = ManualPagesTests.repository

    /// The Swift files of the targets `swift build` builds besides the products: the sources and the harness.
    static func plainTargetFiles() -> [String] {
        ["Sources", "Tests/DaemonHarness"].flatMap { folder -> [String] in
            let root = repository + "/" + folder
            let names = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            return names.filter { $0.hasSuffix(".swift") }.map { root + "/" + $0 }
        }
    }

    @Test("an import of Testing in a plain target is inside #if canImport(Testing)")
    func testingImportsAreGuarded() throws {
        let files = Self.plainTargetFiles()
        #expect(files.count > 100, "found \(files.count) files")
        var unguarded: [String] = []
        for file in files {
            var guarded = false
            for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.hasPrefix("#if canImport(Testing)") { guarded = true }
                if text.hasPrefix("#endif") { guarded = false }
                let words = text.split(separator: " ")
                if let index = words.firstIndex(of: "import"), words.count > index + 1, words[index + 1] == "Testing",
                    !guarded
                {
                    unguarded.append(file.replacingOccurrences(of: Self.repository + "/", with: ""))
                }
            }
        }
        #expect(unguarded.isEmpty, "import Testing outside #if canImport(Testing): \(unguarded)")
    }
}
