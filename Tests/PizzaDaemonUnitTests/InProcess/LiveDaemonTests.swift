import DaemonHarness
import Foundation
import PizzaTesting
import Testing

/// The live fixture itself: a daemon stopped in the test's process lets go of everything, as a process's exit would.
@Suite("A live pizzad in the test's process", .serialized, .offThePool)
struct LiveDaemonTests {
    /// The descriptors of this process open on files in `folder`.
    static func descriptors(in folder: String) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.hasPrefix(folder) }
    }

    @Test("stopped, it exits 0 and holds nothing of its folder open: no database, WAL, socket or lock")
    func letsGo() throws {
        let folder = try TemporaryFolder("pizzad-live-stop")
        defer { folder.remove() }
        let daemon = try LiveDaemon(
            config: "board:\n  listen: 127.0.0.1:0\nmetrics:\n  listen: 127.0.0.1:0\n", directory: folder.path)
        try #require(daemon.pizzactl(["order", "new", "--place", "cheese"]).status == 0)
        #expect(!Self.descriptors(in: folder.path).isEmpty)
        #expect(try daemon.stop() == 0)
        #expect(Self.descriptors(in: folder.path) == [], "\(daemon.output.suffix(2000))")
        #expect(try sqlite3(folder.path + "/pizzad.sqlite", "PRAGMA integrity_check") == "ok")
    }
}
