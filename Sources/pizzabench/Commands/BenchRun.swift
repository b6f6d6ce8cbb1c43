import ArgumentParser
import Foundation
import PizzaTesting

/// One pizzabench run: the release pizzad beside this binary and a work folder, removed at every way out (the
/// end, a failure, ^C, with the servers started in it stopped first).
final class BenchRun: Sendable {
    let pizzad: String
    let work: String
    private let folder: TemporaryFolder

    /// Checks that the pizzad measured is there (`binary`, else the release build beside this one), makes the work
    /// folder and prints the machine's line.
    init(seconds: Double? = nil, pizzad binary: String? = nil) throws {
        pizzad = binary ?? BuiltPrograms.pizzad
        guard FileManager.default.isExecutableFile(atPath: pizzad) else {
            if let binary { throw ValidationError("--pizzad \(binary): no executable there") }
            throw ValidationError("no pizzad beside this binary (\(pizzad)); build it: swift build -c release")
        }
        folder = try TemporaryFolder("pizzabench")
        work = folder.path
        LeftBehind.catchInterrupts()
        // Registered first, so it runs last: after the servers in the folder are stopped.
        _ = LeftBehind.stopOnInterrupt { [folder] in folder.remove() }
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("model name") }?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
        print(
            "pizzabench: \(ProcessInfo.processInfo.processorCount) cores, "
                + "\(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(cpu ?? "unknown CPU")")
        if binary != nil { print("pizzad measured: \(pizzad)") }
        if let seconds { print("client and daemon share the machine; \(Bench.format(seconds, 0)) s per load step\n") }
    }

    /// A folder of its own inside the work folder.
    func folder(_ name: String) throws -> String {
        let path = work + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Ends the run: the work folder goes; a target not held ends it with exit status 1.
    func finish(held: Bool = true) throws {
        folder.remove()
        if !held { throw ExitCode.failure }
    }
}

/// Where the repository's files are, for the baselines and migrations.
enum Steps {
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()
    /// The C and SQL baselines.
    static let baselines = repository + "/Sources/pizzabench/Baselines"
    /// The project's migrations, which samework.c applies as pizzad does.
    static let migrations = repository + "/migrations"
}

func us(_ value: UInt64) -> String { Bench.latency(value) }
