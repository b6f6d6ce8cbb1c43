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
        // On the disk (TMPDIR's, else /tmp), not in memory as the tests' folders are: what is measured is a shop's
        // database, whose commits reach a disk and whose fsyncs wait for it (on this kind of VM the disk's writes also
        // cost CPU, which a tmpfs folder would leave out of every figure).
        folder = try TemporaryFolder("pizzabench", in: NSTemporaryDirectory())
        work = folder.path
        LeftBehind.catchInterrupts()
        // Registered first, so it runs last: after the servers in the folder are stopped.
        _ = LeftBehind.stopOnInterrupt { [folder] in folder.remove() }
        print(
            "pizzabench: \(ProcessInfo.processInfo.processorCount) cores, "
                + "\(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(Self.processor)")
        if binary != nil { print("pizzad measured: \(pizzad)") }
        print("work folder: \(work) (\(Self.fileSystem(of: work)))")
        if let seconds { print("client and daemon share the machine; \(Bench.format(seconds, 0)) s per load step\n") }
    }

    /// The processor as `/proc/cpuinfo` names it, with its family and model: a virtual machine's name is often only
    /// the maker's ("AMD EPYC"), and two generations behind one name ran the same code at twice each other's CPU
    /// (PERFORMANCE.md, "A newer AMD EPYC").
    static var processor: String {
        let lines = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n") ?? []
        // "key<tabs>: value", the first processor's.
        let fields = lines.map { $0.split(separator: ":", maxSplits: 1) }.filter { $0.count == 2 }
        func field(_ name: String) -> String? {
            fields.first { $0[0].trimmingCharacters(in: .whitespaces) == name }?[1].trimmingCharacters(in: .whitespaces)
        }
        guard let name = field("model name") else { return "unknown CPU" }
        guard let family = field("cpu family"), let model = field("model") else { return name }
        return "\(name) (family \(family), model \(model))"
    }

    /// The type of the file system `path` is on (`ext4`, `tmpfs`): the mount with the longest prefix of it.
    static func fileSystem(of path: String) -> String {
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        let fields = mounts.split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count > 2 }
        let mount = fields.filter { path == $0[1] || path.hasPrefix($0[1] == "/" ? "/" : $0[1] + "/") }
            .max { $0[1].count < $1[1].count }
        return mount.map { String($0[2]) } ?? "unknown file system"
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
