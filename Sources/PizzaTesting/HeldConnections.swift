import Foundation

/// Many idle connections to pizzad, held by the `hold-connections` helper in a process of its own.
///
/// Why not in the test process: Foundation's `Process.run()` on Linux (swift-corelibs-foundation before PR #5472,
/// which includes Swift 6.3.1) reads `/proc/self/fd` and copies 256 bytes of each entry's name; its read buffer
/// holds about 1,360 entries, and past that the copy can run into an unmapped page. A test process holding 1,000
/// connections while other suites start pizzad and pizzactl came within a dozen descriptors of that (1,349
/// measured), and a fresh-clone run once crashed with SIGSEGV there (and again, 2026-12-06, with 1,100 held in
/// process by two API tests). Held here, they cost the test process three.
public final class HeldConnections {
    private let process = Process()
    private let input = Pipe()

    /// Opens `count` connections to the Unix socket at `path`; with `mixed`, a third are half-closed and a third
    /// have sent half a request line.
    public convenience init(socket path: String, count: Int, mixed: Bool = false) throws {
        try self.init(["unix", path, String(count)] + (mixed ? ["mixed"] : []))
    }

    /// Tries `count` connections to 127.0.0.1:`port`, from the loopback address `from` when given (another host, as
    /// far as the server's per-address limits go); ``connected`` says how many the server took.
    public convenience init(port: Int, count: Int, from: String? = nil) throws {
        try self.init(["tcp", String(port), String(count)] + (from.map { [$0] } ?? []))
    }

    /// How many of the connections were made.
    public private(set) var connected = 0

    private init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: BuiltPrograms.directory + "/hold-connections")
        process.arguments = arguments
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.runWithCleanSignals()
        // `ready` once every connection is open; end of file if the helper failed (it says why on stderr).
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        connected = Int(line.dropFirst(6).prefix { $0.isNumber }) ?? 0
        guard line.hasPrefix("ready") else {
            process.waitUntilExit()
            throw HarnessError(
                "hold-connections \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))")
        }
    }

    /// Closes every connection (the helper exits).
    public func release() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { release() }
}
