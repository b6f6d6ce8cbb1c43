import Foundation
import Testing

/// Whether this process may mount a tmpfs (root, as on the build machines and CI).
let canMount: Bool = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount")

@Suite("A full disk", .serialized)
struct DiskFullTests {
    @Test("a full disk: storage errors, nothing half-written, reads go on, one log line, recovery when space returns",
          .enabled(if: canMount))
    func diskFull() throws {
        let directory = NSTemporaryDirectory() + "pizzad-full-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mounted = try run("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", directory])
        try #require(mounted.status == 0, "\(mounted)")
        defer { _ = try? run("umount", ["-l", directory]) }
        let listener = try NotifyListener(path: NSTemporaryDirectory() + "pizzad-full-notify-" + UUID().uuidString.prefix(8))
        let daemon = try DaemonProcess(
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"], directory: directory)
        // Leave a little room, then fill it with orders until the disk refuses.
        let filler = directory + "/filler"
        _ = try run("dd", ["if=/dev/zero", "of=\(filler)", "bs=64k", "count=40"])
        let connection = try RawConnection(path: daemon.socket)
        var acknowledged = 0
        var storageErrors = 0
        for index in 0..<5000 {
            let note = String(repeating: "n", count: 900)
            let response = try connection.request(
                #"{"jsonrpc":"2.0","id":\#(index),"method":"order.create","params":{"note":"\#(note)","items":[{"kind":"cheese"},{"kind":"chicken"}]}}"#)
            if response.errorCode == nil {
                acknowledged += 1
            } else {
                #expect(response.errorCode == 1006, "\(response)")
                storageErrors += 1
                if storageErrors >= 20 { break }
            }
        }
        #expect(storageErrors >= 20, "the disk never filled (\(acknowledged) orders)")
        #expect(acknowledged > 0)
        // Reads go on while writes fail.
        let read = try connection.request(#"{"jsonrpc":"2.0","id":"r","method":"order.get","params":{"id":1}}"#)
        #expect(read.errorCode == nil, "\(read)")
        let status = try connection.request(#"{"jsonrpc":"2.0","id":"s","method":"daemon.status"}"#)
        #expect((status.result?["storage"] as? String)?.hasPrefix("failing") == true, "\(status)")
        let statusLines = listener.collect(timeout: 3) { $0.contains { $0.message.contains("STATUS=storage failing") } }
        #expect(statusLines.contains { $0.message.contains("STATUS=storage failing") })
        let deadline = Date().addingTimeInterval(5)
        while !daemon.output.contains("storage is failing"), Date() < deadline { usleep(20_000) }
        #expect(daemon.output.components(separatedBy: "storage is failing").count - 1 == 1, "\(daemon.output)")

        // Space returns: the daemon recovers by itself.
        try FileManager.default.removeItem(atPath: filler)
        let again = try connection.request(#"{"jsonrpc":"2.0","id":"a","method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#)
        #expect(again.errorCode == nil, "\(again)")
        let recovered = Date().addingTimeInterval(5)
        while !daemon.output.contains("storage recovered"), Date() < recovered { usleep(20_000) }
        #expect(daemon.output.contains("storage recovered"))
        // Every acknowledged order is whole; no refused one left a trace.
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM carts") == String(acknowledged + 1))
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM audit_log") == String(acknowledged + 1))
        #expect(try sqlite3(daemon.database, "SELECT count(*) FROM pizzas") == String(2 * acknowledged + 1))
        #expect(try sqlite3(daemon.database, "PRAGMA integrity_check") == "ok")
        #expect(try daemon.pizzactl(["audit", "verify"]).status == 0)
        #expect(try daemon.stop() == 0)
    }

    @Test("a database folder that vanishes: changes are refused with storage, nothing is acknowledged into the void")
    func vanishedDirectory() throws {
        let directory = NSTemporaryDirectory() + "pizzad-vanish-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory + "/db", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(arguments: ["--database", directory + "/db/pizzad.sqlite"], directory: directory)
        let connection = try RawConnection(path: daemon.socket)
        let first = try connection.request(#"{"jsonrpc":"2.0","id":1,"method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#)
        #expect(first.errorCode == nil)
        try FileManager.default.removeItem(atPath: directory + "/db")
        let refused = try connection.request(#"{"jsonrpc":"2.0","id":2,"method":"order.create","params":{"items":[{"kind":"cheese"}]}}"#)
        #expect(refused.errorCode == 1006, "\(refused)")
        #expect((refused["error"] as? [String: Any])?["message"] as? String ?? "" != "")
        let status = try connection.request(#"{"jsonrpc":"2.0","id":3,"method":"daemon.status"}"#)
        let storage = (status.result?["storage"] as? String) ?? (status["error"] as? [String: Any]).map { "\($0)" } ?? ""
        #expect(storage.contains("removed or replaced") || status.errorCode == 1006, "\(status)")
        #expect(daemon.process.isRunning)
    }
}
