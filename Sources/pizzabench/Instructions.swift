import Foundation
import Locking
import PizzaTesting

/// What `order.create` costs in instructions: pizzad's and the socket bound's user-mode instructions per order,
/// counted by Valgrind's callgrind over the same load (1 and then 16 clients, two pizzas, placed, unique refs). An instruction
/// count does not drift with the machine's speed, the hour or another process's load, as a CPU time does: the same
/// binary and load count the same within a fraction of a percent, so a change's cost shows even where a timed run
/// cannot see it.
///
/// It is a yardstick for the servers' own code, not a CPU time: the kernel's work (system calls, the `fsync`) is
/// not counted; under Valgrind every thread runs in turn on one core, so the group commits are smaller than in a
/// native run (each server's orders per `fdatasync` are printed, about its changes per commit); and SHA-256
/// runs its AVX code, where natively both pizzad (BoringSSL) and the bound (OpenSSL) use the processor's SHA
/// instructions, so the figures are also given without it. Each thread is counted apart, so that the event loops'
/// share shows, beside SwiftNIO's floor (`nio-floor`, counted too): pizzad's loops less the floor's are pizzad's own.
enum Instructions {
    /// One server's count over a window, per order.
    struct Counted {
        var orders: Int
        var instructions: Double
        /// Of `instructions`, in the calls to SHA-256's update and final functions (all they call included).
        var sha256: Double
        /// Of `instructions`, on the event loops' threads (SwiftNIO's loops; socketwork.c's `loop` threads).
        var loops: Double
        /// Orders over `fdatasync` calls: about the group commits' size under Valgrind (a checkpoint syncs too); nil
        /// for a server that does not sync (the floor).
        var ordersPerSync: Double?
        /// The functions with the most instructions of their own, per order.
        var top: [(function: String, perOrder: Double)]
    }

    /// Seconds of load before the counters are zeroed: under Valgrind a server runs some thirty times slower.
    static let warmUp = 5.0

    /// Why instructions cannot be counted here, or nil.
    static var unavailableReason: String? {
        for program in ["valgrind", "callgrind_control", "objcopy"] where ProgramPath.find(program) == nil {
            return "\(program) is not installed (Debian: valgrind, binutils)"
        }
        return nil
    }

    /// The valgrind command line that counts a process's instructions into `directory`.
    static func callgrind(_ directory: String) throws -> [String] {
        guard let valgrind = ProgramPath.find("valgrind") else { throw BenchError("valgrind is not installed") }
        return [
            valgrind, "--tool=callgrind", "--separate-threads=yes",
            "--callgrind-out-file=" + directory + "/callgrind.%p",
        ]
    }

    /// A copy of `binary` without its debug information: Valgrind 3.19 (Debian 12) cannot read the DWARF 5 that
    /// Swift 6.3 writes and gives up on the binary. The symbols stay, so the functions keep their names.
    static func stripped(_ binary: String, into directory: String) throws -> String {
        let copy = directory + "/" + (binary as NSString).lastPathComponent + ".stripped"
        if !FileManager.default.fileExists(atPath: copy) {
            try Bench.run("/usr/bin/env", ["objcopy", "--strip-debug", binary, copy])
        }
        return copy
    }

    /// Counts `pid`'s instructions over `window` seconds after a warm-up: callgrind's counters are zeroed, the load
    /// runs, and they are dumped; `orders` says how many orders exist (read on both sides of each command, the
    /// midpoints taken).
    static func count(
        pid: Int32, directory: String, window: Double, top: Int, orders: () throws -> Int
    ) throws -> Counted {
        func control(_ command: String) throws -> Double {
            let before = try orders()
            let result = try Bench.runStatus("/usr/bin/env", ["callgrind_control", command, String(pid)])
            guard result.status == 0 else {
                throw BenchError("callgrind_control \(command) \(pid) failed: \(result.output.trimmed)")
            }
            return Double(before + (try orders())) / 2
        }
        let start = try control("--zero")
        Thread.sleep(forTimeInterval: window)
        let end = try control("--dump")
        // One file a thread: callgrind.PID.1-01, -02, …
        let prefix = "callgrind.\(pid).1-"
        let dumps = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix) }
        guard !dumps.isEmpty else { throw BenchError("callgrind wrote no dump \(prefix)* in \(directory)") }
        var profile = CallgrindProfile()
        var loops: UInt64 = 0
        for dump in dumps {
            guard let text = try? String(contentsOfFile: directory + "/" + dump, encoding: .utf8) else {
                throw BenchError("cannot read callgrind's dump \(directory)/\(dump)")
            }
            let thread = CallgrindProfile(text)
            if thread.isEventLoop { loops += thread.total }
            profile.add(thread)
        }
        let made = max(1, end - start)
        // SHA-256 as the servers call it: BoringSSL's in pizzad, OpenSSL's in the bound (whose block function has no
        // name in Debian's libcrypto).
        let sha256 = [
            "SHA256_Update", "SHA256_Final", "CCryptoBoringSSL_SHA256_Update", "CCryptoBoringSSL_SHA256_Final",
        ]
        .reduce(0) { $0 + profile.callCost[$1, default: 0] }
        let ranked = profile.selfCost.sorted { $0.value > $1.value }.prefix(top)
        return Counted(
            orders: Int(made.rounded()), instructions: Double(profile.total) / made, sha256: Double(sha256) / made,
            loops: Double(loops) / made,
            ordersPerSync: profile.calls["fdatasync"].map { made / Double($0) },
            top: ranked.map { ($0.key, Double($0.value) / made) })
    }

    /// pizzad under callgrind (a copy without debug information), loaded from this process's clients.
    static func countPizzad(
        pizzad: String, clients: Int, directory: String, window: Double, top: Int, order: Order = .twoPizzas
    ) throws -> Counted {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let wrapper = directory + "/pizzad-under-callgrind"
        let command = try callgrind(directory) + [try stripped(pizzad, into: directory)]
        try ("#!/bin/sh\nexec " + command.map { "'\($0)'" }.joined(separator: " ") + " \"$@\"\n")
            .write(toFile: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        let daemon = try PizzadProcess.bench(binary: wrapper, directory: directory, config: order.config)
        let loaded = DispatchSemaphore(value: 0)
        let load = Locked<Result<LoadResult, any Error>?>(nil)
        Thread.detachNewThread {
            load.withLock {
                $0 = Result { try order.load(daemon, clients: clients, seconds: warmUp + window + 5) }
            }
            loaded.signal()
        }
        Thread.sleep(forTimeInterval: warmUp)
        let counted = try count(pid: daemon.pid, directory: directory, window: window, top: top) {
            try Counts.orderCount(daemon.database)
        }
        loaded.wait()
        _ = try? daemon.stop(timeout: 120)
        if let kept = ProcessInfo.processInfo.environment["PIZZABENCH_CALLGRIND_KEEP"] {
            // callgrind's files, for callgrind_annotate --inclusive=yes (the call graph the table leaves out).
            try? FileManager.default.removeItem(atPath: kept)
            try FileManager.default.moveItem(atPath: directory, toPath: kept)
        }
        try? FileManager.default.removeItem(atPath: directory)
        if case .failure(let error) = load.withLock({ $0 }) { throw error }
        return counted
    }

    /// The socket bound under callgrind (its clients, a forked child, are counted apart and left out).
    static func countBound(
        socketWork: SocketWork, clients: Int, directory: String, window: Double, top: Int, order: SocketWork.Order
    ) throws -> Counted {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = directory + "/socketwork.db"
        let command = try callgrind(directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments =
            Array(command.dropFirst()) + [
                socketWork.binary, database, Steps.migrations, String(clients), String(window + 15), order.rawValue,
            ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runWithCleanSignals()
        Thread.sleep(forTimeInterval: warmUp)
        let counted = try count(pid: process.processIdentifier, directory: directory, window: window, top: top) {
            try Counts.orderCount(database)
        }
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
        return counted
    }
}

extension Instructions {
    /// pizzad (and `before`, the tree before a change) and the bound at each client count, one after the other;
    /// prints the table, the ratios to the bound, and, at the first client count, each one's functions with the most
    /// instructions of their own. One client makes every group commit one change for both servers, so that their
    /// per-commit work weighs the same; at 16, Valgrind's one-thread-at-a-time running sizes the groups.
    static func report(
        pizzad: String, before: String?, clients: [Int], work: String, window: Double, top: Int,
        order: Order = .twoPizzas
    ) throws {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let socketWork = try SocketWork(migrations: Steps.migrations, directory: work)
        print(
            "instructions per order.create in user mode (callgrind; \(order.described), unique refs; "
                + "\(Bench.format(window, 0)) s of load each, after \(Bench.format(warmUp, 0)) s of warm-up)")
        // The bound makes the same order; the floor (the loops' side, no order made) only beside two pizzas.
        let withFloor = order == .twoPizzas
        if !withFloor { print("SwiftNIO's floor is counted with --order two-pizzas only") }
        let binaries = [("pizzad", pizzad)] + (before.map { [("before", $0)] } ?? [])
        var rows: [[String]] = []
        var ratios: [String] = []
        var listed: [(name: String, counted: Counted)] = []
        for (round, count) in clients.enumerated() {
            var servers: [(name: String, counted: Counted)] = []
            for (index, (name, binary)) in binaries.enumerated() {
                let directory = work + "/instructions-\(count)-\(index)"
                servers.append(
                    (
                        name,
                        try countPizzad(
                            pizzad: binary, clients: count, directory: directory, window: window, top: top,
                            order: order)
                    ))
            }
            let pizzads = servers
            var bound: Counted?
            var floor: Counted?
            bound = try countBound(
                socketWork: socketWork, clients: count, directory: work + "/instructions-\(count)-bound",
                window: window, top: top, order: order)
            if withFloor {
                floor = try countFloor(
                    clients: count, directory: work + "/instructions-\(count)-floor", window: window, top: top)
            }
            if let bound { servers.append(("socket bound (socketwork.c)", bound)) }
            if let floor { servers.append(("SwiftNIO's floor (nio-floor)", floor)) }
            for (name, counted) in servers {
                rows.append([
                    String(count), name, String(counted.orders), Bench.format(counted.instructions, 0),
                    Bench.format(counted.instructions - counted.sha256, 0), Bench.format(counted.loops, 0),
                    counted.ordersPerSync.map { Bench.format($0, 2) } ?? "-",
                ])
            }
            let plural = count == 1 ? "" : "s"
            for (name, counted) in pizzads {
                guard let bound else { continue }
                let without = (counted.instructions - counted.sha256) / (bound.instructions - bound.sha256)
                let loops =
                    floor.map {
                        "; on the event loops \(Bench.format(counted.loops, 0)), the floor's "
                            + "\(Bench.format($0.loops, 0)): \(name)'s own \(Bench.format(counted.loops - $0.loops, 0))"
                    } ?? ""
                ratios.append(
                    "\(count) client\(plural): \(name) × the bound's instructions "
                        + "\(Bench.format(counted.instructions / bound.instructions, 2)) (without SHA-256 "
                        + "\(Bench.format(without, 2)))" + loops)
            }
            if round == 0 {
                listed = servers.map { ("\($0.name), \(count) client\(count == 1 ? "" : "s")", $0.counted) }
            }
        }
        Bench.table(
            ["clients", "server", "orders", "instructions", "without SHA-256", "on the loops", "orders per fdatasync"],
            rows)
        if withFloor {
            print(
                "SwiftNIO's floor: pizzad's loop side without pizzad (see counts), loaded by the C till; "
                    + "only its loops compare")
        }
        ratios.forEach { print($0) }
        for (name, counted) in listed where top > 0 {
            print("\(name): the \(top) functions with the most instructions of their own, per order")
            let names = demangled(counted.top.map(\.function))
            for (index, entry) in counted.top.enumerated() {
                print(
                    "  " + Bench.format(entry.perOrder, 0).leftPadded(to: 8) + "  " + String(names[index].prefix(110)))
            }
        }
    }

    /// Swift's names readable (`swift demangle --simplified --compact`), the others as they are.
    static func demangled(_ names: [String]) -> [String] {
        let swift = names.filter { $0.hasPrefix("$s") }
        guard !swift.isEmpty,
            let result = try? Bench.runStatus(
                "/usr/bin/env", ["swift", "demangle", "--simplified", "--compact"] + swift),
            result.status == 0
        else { return names }
        let lines = result.output.split(separator: "\n").map(String.init)
        guard lines.count == swift.count else { return names }
        let readable = Dictionary(zip(swift, lines)) { first, _ in first }
        return names.map { readable[$0] ?? $0 }
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
