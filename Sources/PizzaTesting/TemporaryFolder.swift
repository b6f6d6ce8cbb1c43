import Foundation

/// A folder of the test's own under the system's temporary folder, removed with everything in it when the value
/// goes. Readable by others (`0755`): tests run pizzactl as other users against a socket inside.
public final class TemporaryFolder: Sendable {
    public let path: String

    /// A new folder named `prefix` and a random part (`/tmp/pizzad-restore-1a2b3c4d`).
    public init(_ prefix: String = "pizzad-test") throws {
        path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
    }

    /// A path inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the folder now (`defer { folder.remove() }` also keeps it until the end of the scope).
    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}

/// Where the built programs are: beside the running one (the test bundle or pizzabench) in the build folder.
public enum BuiltPrograms {
    public static let directory: String = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On Linux the test runner is `<build>/pizzadPackageTests.xctest`; on other layouts walk up a little.
        for _ in 0..<3 where !FileManager.default.fileExists(atPath: url.appendingPathComponent("pizzad").path) {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    public static var pizzad: String { directory + "/pizzad" }
    public static var pizzactl: String { directory + "/pizzactl" }
}

/// Whether this process (and so the pizzad built with it) runs under AddressSanitizer or ThreadSanitizer, both
/// much slower: waits for pizzad are longer then.
public let sanitizerIsActive =
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
    || dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
